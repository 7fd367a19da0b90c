import {
  defineMethod,
  type AnyMethodDefinition,
  type MethodDefinition,
  type Schema,
} from '@rollup-router/core';
import {
  accountQueryParamsSchema,
  getMultipleAccountsParamsSchema,
  type AccountQueryParams,
  type GetMultipleAccountsParams,
} from '../generated/schemas.js';
import type { Routing } from '../routing.js';
import type { Origins } from '../upstream/origins.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';

/** At most a config object: the upstream checks it. */
const optionalConfig = { type: 'array', maxItems: 1 } as const;
const keyThenConfig = (title: string) =>
  ({
    type: 'array',
    minItems: 1,
    maxItems: 2,
    prefixItems: [{ title, type: 'string', minLength: 1, maxLength: 128 }, { type: ['object', 'null'] }],
  }) as const;

/** A method whose params go to one upstream as given, and whose answer comes back unchanged. */
function forwarded<P extends readonly unknown[]>(
  name: string,
  summary: string,
  params: Schema,
  caller: UpstreamCaller,
  targetOf: (params: P) => Upstream | Promise<Upstream>,
): MethodDefinition<P, unknown> {
  return defineMethod<P, unknown>({
    name,
    summary,
    params,
    handler: async (p, ctx) => caller.call(await targetOf(p ?? ([] as unknown as P)), name, p, ctx.signal),
  });
}

interface AccountsAnswer {
  readonly context: { readonly slot: number };
  readonly value: readonly unknown[];
}

/**
 * The Solana methods the SDKs' flows call beside the router's own: chain-wide ones from
 * the base chain (the Rust router answers getLatestBlockhash from the closest ER, which
 * breaks base-chain transactions), the rest from the chain that holds what they name.
 */
export function forwardedMethods(
  routing: Routing,
  caller: UpstreamCaller,
  blockhashes: Origins,
  sent: Origins,
): AnyMethodDefinition[] {
  const base = routing.baseChain;
  const methods = [
    forwarded(
      'getLatestBlockhash',
      "Returns the base chain's latest blockhash.",
      optionalConfig,
      caller,
      () => base,
    ),
    forwarded('getBlockHeight', "Returns the base chain's block height.", optionalConfig, caller, () => base),
    forwarded<[string, unknown?]>(
      'isBlockhashValid',
      'Asks the chain that handed out the blockhash (the base chain when it is not known here).',
      keyThenConfig('Blockhash'),
      caller,
      ([blockhash]) => blockhashes.of(blockhash) ?? base,
    ),
    getTransactionMethod(caller, sent, base),
    forwarded<AccountQueryParams>(
      'getBalance',
      "Returns an account's balance from the chain that holds it.",
      accountQueryParamsSchema,
      caller,
      ([account]) => routing.targetOf([account]),
    ),
    forwarded<AccountQueryParams>(
      'getAccountInfo',
      'Returns an account from the chain that holds it.',
      accountQueryParamsSchema,
      caller,
      ([account]) => routing.targetOf([account]),
    ),
    getMultipleAccountsMethod(routing, caller),
  ];
  return methods as AnyMethodDefinition[];
}

/**
 * getTransaction: first of the chain the transaction was sent to through this router, then
 * of the base chain when that ER answers null (an ER keeps a short ledger) or when the
 * transaction is not known here. An ER that does not answer is its error: the base chain's
 * null would say "no such transaction" of one that may well exist.
 */
function getTransactionMethod(
  caller: UpstreamCaller,
  sent: Origins,
  base: Upstream,
): MethodDefinition<[string, unknown?], unknown> {
  return defineMethod<[string, unknown?], unknown>({
    name: 'getTransaction',
    summary:
      'Asks the chain the transaction was sent to through this router, then the base chain when that one has it no more.',
    params: keyThenConfig('Signature'),
    handler: async (params, ctx) => {
      const sentTo = sent.of(params[0]);
      if (sentTo !== undefined && sentTo !== base) {
        const found = await caller.call(sentTo, 'getTransaction', params, ctx.signal);
        if (found !== null) return found;
      }
      return caller.call(base, 'getTransaction', params, ctx.signal);
    },
  });
}

/**
 * getMultipleAccounts: each account asked of the chain that holds it, the answers merged
 * in request order.
 */
function getMultipleAccountsMethod(
  routing: Routing,
  caller: UpstreamCaller,
): MethodDefinition<GetMultipleAccountsParams, AccountsAnswer> {
  const base = routing.baseChain;
  return defineMethod<GetMultipleAccountsParams, AccountsAnswer>({
    name: 'getMultipleAccounts',
    summary: 'Returns each account from the chain that holds it, in request order.',
    params: getMultipleAccountsParamsSchema,
    handler: async ([accounts, config], ctx) => {
      const holders = await routing.holdersOf(accounts);
      const groups = new Map<string, { upstream: Upstream; at: number[] }>();
      holders.forEach((upstream, i) => {
        const group =
          groups.get(upstream.name) ?? groups.set(upstream.name, { upstream, at: [] }).get(upstream.name)!;
        group.at.push(i);
      });
      if (groups.size === 0) groups.set(base.name, { upstream: base, at: [] });
      const value: unknown[] = new Array(accounts.length).fill(null);
      const contexts = new Map<string, AccountsAnswer['context']>();
      await Promise.all(
        [...groups.values()].map(async ({ upstream, at }) => {
          const keys = at.map((i) => accounts[i]);
          const answer = await caller.call<AccountsAnswer>(
            upstream,
            'getMultipleAccounts',
            config === undefined ? [keys] : [keys, config],
            ctx.signal,
          );
          if (!Array.isArray(answer?.value) || answer.value.length !== keys.length) {
            throw caller.badReply(
              upstream,
              'getMultipleAccounts',
              'getMultipleAccounts answered no account list of the right length',
            );
          }
          at.forEach((i, k) => (value[i] = answer.value[k]));
          contexts.set(upstream.name, answer.context);
        }),
      );
      // ER slots count on clocks of their own: the base chain's context when it answered a
      // part, else the context of the ER that holds the first account.
      const context = contexts.get(base.name) ?? contexts.get(holders[0]?.name ?? base.name)!;
      return { context, value };
    },
  });
}
