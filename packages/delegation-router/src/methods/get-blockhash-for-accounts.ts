import { defineMethod, type MethodDefinition } from '@rollup-router/core';
import {
  blockhashForAccountsResultSchema,
  getBlockhashForAccountsParamsSchema,
  type BlockhashForAccountsResult,
  type GetBlockhashForAccountsParams,
} from '../generated/schemas.js';
import type { Routing } from '../routing.js';
import type { Origins } from '../upstream/origins.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import { badReply } from '../upstream/upstream-caller.js';

interface LatestBlockhash {
  readonly value?: { readonly blockhash?: unknown; readonly lastValidBlockHeight?: unknown };
}

/**
 * getBlockhashForAccounts: a blockhash of the chain that will take a transaction writing
 * these accounts, flat, as the SDKs read it. The kit SDK also calls it with `[[]]` to
 * learn whether its URL is a router.
 */
export function getBlockhashForAccountsMethod(
  routing: Routing,
  caller: UpstreamCaller,
  blockhashes: Origins,
): MethodDefinition<GetBlockhashForAccountsParams, BlockhashForAccountsResult> {
  return defineMethod<GetBlockhashForAccountsParams, BlockhashForAccountsResult>({
    name: 'getBlockhashForAccounts',
    summary: 'Returns a recent blockhash of the chain that holds these accounts.',
    description:
      'From the ER the delegated ones among the accounts are delegated to, or from the base chain when none is (the empty list included). The result is flat, not wrapped in context and value.',
    params: getBlockhashForAccountsParamsSchema,
    result: blockhashForAccountsResultSchema,
    handler: async ([accounts], ctx) => {
      const target = await routing.targetOf(accounts);
      const reply = await caller.call<LatestBlockhash>(
        target,
        'getLatestBlockhash',
        [{ commitment: 'confirmed' }],
        ctx.signal,
      );
      const { blockhash, lastValidBlockHeight } = reply?.value ?? {};
      if (
        typeof blockhash !== 'string' ||
        typeof lastValidBlockHeight !== 'number' ||
        lastValidBlockHeight < 1
      ) {
        throw badReply(
          target,
          'getLatestBlockhash answered no blockhash with a positive lastValidBlockHeight',
        );
      }
      blockhashes.remember(blockhash, target);
      return { blockhash, lastValidBlockHeight };
    },
  });
}
