import {
  defineMethod,
  forwardedMethods,
  RawJson,
  RpcError,
  type CallContext,
  type MethodDefinition,
  type Schema,
} from '@rollup-router/core';
import { DelegationError } from '../errors.js';
import {
  accountQueryParamsSchema,
  getMultipleAccountsParamsSchema,
  type DelegationRouterOptionsResolved,
  type GetMultipleAccountsParams,
} from '../generated/schemas.js';
import type { Routing } from '../routing.js';
import { decodeWireMessage, decodeWireTransaction } from '../transaction/decode-transaction.js';
import type { LookupTables } from '../transaction/lookup-tables.js';
import type { Origins } from '../upstream/origins.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import type { ProgramDelegations } from '../delegation/program-delegations.js';
import { accountListOf } from './account-list.js';
import { METHOD_TABLE, type ForwardRoute, type TableEntry, type TableMethod } from './method-table.js';
import { getProgramAccountsMethod } from './program-accounts.js';
import { getSignaturesForAddressMethod } from './signatures-for-address.js';

export type ReplyCaps = DelegationRouterOptionsResolved['maxReplyBytes'];

export interface ForwardingParts {
  readonly routing: Routing;
  readonly caller: UpstreamCaller;
  readonly tables: LookupTables;
  /** Where each blockhash handed out came from. */
  readonly blockhashes: Origins;
  /** Where each transaction went. */
  readonly sent: Origins;
  readonly caps: ReplyCaps;
  /** A program's delegated accounts (getProgramAccounts). */
  readonly programDelegations: ProgramDelegations;
}

const WIRE_MAX_LENGTH = 1700;
const keyThen = (title: string, maxLength: number): Schema => ({
  type: 'array',
  minItems: 1,
  maxItems: 2,
  prefixItems: [{ title, type: 'string', minLength: 1, maxLength }, { type: ['object', 'null'] }],
});

/** Each route's params: what names the chain is checked here; the rest by the chain. */
function paramsOf(entry: TableEntry & { readonly route: ForwardRoute }): Schema {
  switch (entry.route) {
    case 'account':
      return accountQueryParamsSchema;
    case 'transaction':
      return keyThen('Wire transaction', WIRE_MAX_LENGTH);
    case 'message':
      return keyThen('Wire message (base64)', WIRE_MAX_LENGTH);
    case 'blockhash':
      return keyThen('Blockhash', 128);
    case 'base':
      return { type: 'array', maxItems: entry.maxParams };
  }
}

const SUMMARIES: Record<ForwardRoute, string> = {
  base: 'Forwarded to the base chain.',
  account: 'Forwarded to the chain that holds the account: its ER while delegated, else the base chain.',
  transaction:
    'Forwarded to the chain that holds the writable accounts of the transaction, as sendTransaction.',
  message: 'Forwarded to the chain that holds the writable accounts of the message, as sendTransaction.',
  blockhash: 'Forwarded to the chain that handed out the blockhash through this router, else the base chain.',
};

const invalid = (reason: string): RpcError => RpcError.from(DelegationError.INVALID_TRANSACTION, { reason });

/** Where a call of each route goes. */
function targets(
  parts: ForwardingParts,
): Record<ForwardRoute, (params: readonly unknown[]) => Promise<Upstream> | Upstream> {
  const { routing, tables, blockhashes } = parts;
  const base = routing.baseChain;
  return {
    base: () => base,
    account: ([account]) => routing.targetOf([account as string]),
    transaction: async ([wire, config]) => {
      const encoding = (config as { encoding?: unknown } | null | undefined)?.encoding ?? 'base58';
      if (encoding !== 'base58' && encoding !== 'base64') return base; // the chain answers it
      const decoded = decodeWireTransaction(wire as string, encoding, 'unsigned');
      if (!decoded.ok) throw invalid(decoded.reason);
      return routing.targetOf(await tables.writableOf(decoded.tx));
    },
    message: async ([wire]) => {
      const decoded = decodeWireMessage(wire as string);
      if (!decoded.ok) throw invalid(decoded.reason);
      return routing.targetOf(await tables.writableOf(decoded.message));
    },
    blockhash: ([blockhash]) => blockhashes.of(blockhash as string) ?? base,
  };
}

const forwarded = (entry: TableEntry): entry is TableEntry & { readonly route: ForwardRoute } =>
  entry.route !== 'program' && entry.route !== 'history';

/**
 * The standard Solana methods, each forwarded to where its data lives (method-table.ts),
 * with its result as the chain wrote it; and those answered by asking more than one
 * chain: getTransaction, getMultipleAccounts, getProgramAccounts, getSignaturesForAddress.
 */
/**
 * A standard Solana method the router serves, named by its literal type (so `ApiOf` keys it);
 * its params and result are Solana's own, as a node takes and writes them (kit's types give them).
 */
export type StandardMethod = MethodDefinition<
  unknown[],
  unknown,
  unknown,
  TableMethod | 'getTransaction' | 'getMultipleAccounts'
>;

export function standardMethods(parts: ForwardingParts): StandardMethod[] {
  const to = targets(parts);
  const table = Object.entries(METHOD_TABLE as Record<string, TableEntry>).flatMap(([name, entry]) =>
    forwarded(entry)
      ? [
          {
            name,
            summary: SUMMARIES[entry.route],
            params: paramsOf(entry),
            targetOf: to[entry.route],
            maxReplyBytes: parts.caps[entry.reply],
            write: entry.write,
          },
        ]
      : [],
  );
  return [
    ...forwardedMethods(parts.caller, table),
    getTransactionMethod(parts),
    getMultipleAccountsMethod(parts),
    getProgramAccountsMethod(parts),
    getSignaturesForAddressMethod(parts),
  ] as StandardMethod[];
}

/**
 * getTransaction: first of the chain the transaction was sent to through this router, then
 * of the base chain when that ER answers null (an ER keeps a short ledger) or when the
 * transaction is not known here. An ER that does not answer is its error: the base chain's
 * null would say "no such transaction" of one that may well exist. When the base chain has
 * nothing either, the vetted ERs are asked (a transaction an app sent straight to its ER):
 * the first that knows it answers, for this call only; one that does not answer is skipped.
 */
function getTransactionMethod({
  caller,
  sent,
  routing,
  caps,
}: ForwardingParts): MethodDefinition<[string, unknown?], unknown> {
  const base = routing.baseChain;
  return defineMethod<[string, unknown?], unknown>({
    name: 'getTransaction',
    summary:
      'Asks the chain the transaction was sent to through this router, then the base chain when that one has it no more.',
    params: keyThen('Signature', 128),
    handler: async (params, ctx) => {
      const call = { signal: ctx.signal, maxReplyBytes: caps.large };
      // Several may be asked: the call names the one whose answer it returns.
      const answer = (upstream: Upstream, found: RawJson): RawJson => {
        ctx.answeredBy(caller.labelOf(upstream));
        return found;
      };
      const sentTo = sent.of(params[0]);
      if (sentTo !== undefined && sentTo !== base) {
        const found = await caller.forward(sentTo, 'getTransaction', params, call);
        if (found.value !== null) return answer(sentTo, found);
      }
      const fromBase = await caller.forward(base, 'getTransaction', params, call);
      if (fromBase.value !== null) return answer(base, fromBase);
      const ers = routing.ers.vetted().filter((er) => er.name !== sentTo?.name);
      const known = await firstKnown(caller, ers, params, call);
      return known === undefined ? answer(base, fromBase) : answer(known.upstream, known.found);
    },
  });
}

/**
 * getMultipleAccounts: each account asked of the chain that holds it, the answers merged
 * in request order from the texts the chains wrote (a u64 survives). ER slots count on
 * clocks of their own: the merged context is the base chain's when it answered a part,
 * else that of the ER that holds the first account. The call names every chain that answered.
 */
function getMultipleAccountsMethod(
  parts: ForwardingParts,
): MethodDefinition<GetMultipleAccountsParams, unknown> {
  const { routing, caller, caps } = parts;
  const base = routing.baseChain;
  return defineMethod<GetMultipleAccountsParams, unknown>({
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
      if (groups.size === 1) {
        const { upstream } = groups.values().next().value!;
        return caller.forward(
          upstream,
          'getMultipleAccounts',
          config === undefined ? [accounts] : [accounts, config],
          { signal: ctx.signal, maxReplyBytes: caps.accounts, answering: ctx },
        );
      }
      return merged(parts, [...groups.values()], accounts, config, ctx);
    },
  });
}

/** The answers of several chains to one getMultipleAccounts, merged from their texts in request order. */
async function merged(
  { routing, caller, caps }: ForwardingParts,
  groups: readonly { upstream: Upstream; at: number[] }[],
  accounts: readonly string[],
  config: GetMultipleAccountsParams[1],
  ctx: CallContext,
): Promise<RawJson> {
  const texts: string[] = new Array<string>(accounts.length).fill('null');
  const values: unknown[] = new Array<unknown>(accounts.length).fill(null);
  const contexts = new Map<string, { text: string; value: unknown }>();
  await Promise.all(
    groups.map(async ({ upstream, at }) => {
      const keys = at.map((i) => accounts[i]);
      const answer = await caller.forward(
        upstream,
        'getMultipleAccounts',
        config === undefined ? [keys] : [keys, config],
        { signal: ctx.signal, maxReplyBytes: caps.accounts, answering: ctx },
      );
      const list = accountListOf(caller, upstream, answer, keys.length);
      at.forEach((i, k) => {
        texts[i] = list.texts[k]!;
        values[i] = list.values[k];
      });
      contexts.set(upstream.name, list.context);
    }),
  );
  const first = groups.find((g) => g.at.includes(0))!.upstream;
  const context = contexts.get(routing.baseChain.name) ?? contexts.get(first.name)!;
  return new RawJson(`{"context":${context.text},"value":[${texts.join(',')}]}`, {
    context: context.value,
    value: values,
  });
}

/** The first non-null answer of `ers` to getTransaction and who gave it, asked all at once; undefined when none has one. */
async function firstKnown(
  caller: UpstreamCaller,
  ers: readonly Upstream[],
  params: readonly unknown[],
  call: { readonly signal: AbortSignal; readonly maxReplyBytes: number },
): Promise<{ upstream: Upstream; found: RawJson } | undefined> {
  if (ers.length === 0) return undefined;
  const known = ers.map((upstream) =>
    caller.forward(upstream, 'getTransaction', params, call).then((found) => {
      if (found.value === null) throw new Error('not known');
      return { upstream, found };
    }),
  );
  return Promise.any(known).catch(() => undefined);
}
