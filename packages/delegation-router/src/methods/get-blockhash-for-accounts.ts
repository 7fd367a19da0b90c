import { defineMethod, type MethodDefinition } from '@rollup-router/core';
import {
  blockhashForAccountsResultSchema,
  getBlockhashForAccountsParamsSchema,
  type BlockhashForAccountsResult,
  type GetBlockhashForAccountsParams,
} from '../generated/schemas.js';
import type { Routing } from '../routing.js';
import type { Origins } from '../upstream/origins.js';
import type { RecentBlockhashes } from '../upstream/recent-blockhashes.js';

/**
 * getBlockhashForAccounts: a blockhash of the chain that will take a transaction writing
 * these accounts, flat, as the SDKs read it. The kit SDK also calls it with `[[]]` to
 * learn whether its URL is a router.
 */
export function getBlockhashForAccountsMethod(
  routing: Routing,
  recent: RecentBlockhashes,
  blockhashes: Origins,
): MethodDefinition<
  GetBlockhashForAccountsParams,
  BlockhashForAccountsResult,
  unknown,
  'getBlockhashForAccounts'
> {
  return defineMethod<
    GetBlockhashForAccountsParams,
    BlockhashForAccountsResult,
    unknown,
    'getBlockhashForAccounts'
  >({
    name: 'getBlockhashForAccounts',
    summary: 'Returns a recent blockhash of the chain that holds these accounts.',
    description:
      'From the ER the delegated ones among the accounts are delegated to, or from the base chain when none is (the empty list included). The result is flat, not wrapped in context and value.',
    params: getBlockhashForAccountsParamsSchema,
    result: blockhashForAccountsResultSchema,
    handler: async ([accounts], ctx) => {
      const target = await routing.targetOf(accounts);
      const { blockhash, lastValidBlockHeight } = await recent.of(target, ctx);
      // Only a vetted chain's word decides where every client's isBlockhashValid goes.
      if (target.vetted) blockhashes.remember(blockhash, target);
      return { blockhash, lastValidBlockHeight };
    },
  });
}
