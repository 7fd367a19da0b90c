import {
  defineMethod,
  elementTexts,
  memberText,
  RawJson,
  RpcError,
  type CallContext,
  type MethodDefinition,
} from '@rollup-router/core';
import type { ProgramDelegation } from '../delegation/program-delegations.js';
import { getProgramAccountsParamsSchema } from '../generated/schemas.js';
import type { Upstream } from '../upstream/upstream.js';
import { dataFilterOf, type DataFilter } from './account-filters.js';
import { accountListOf } from './account-list.js';
import type { ForwardingParts } from './forwarded-methods.js';

type Config = {
  readonly commitment?: unknown;
  readonly encoding?: unknown;
  readonly dataSlice?: unknown;
  readonly filters?: unknown;
  readonly withContext?: unknown;
} | null;

type Params = [string, Config?];

/** One account as an ER wrote it: its text, and its value for result validation. */
type AccountText = { readonly text: string; readonly value: unknown };

/** Agave's getMultipleAccounts takes at most 100 keys. */
const MAX_KEYS_PER_READ = 100;

/**
 * getProgramAccounts: the base chain's answer, plus the program's accounts that are
 * delegated now (on the base chain the delegation program owns them) as their ERs hold
 * them. Each ER is asked with one getMultipleAccounts per 100 accounts, with the call's
 * encoding and dataSlice; with filters, the ER's whole data is read to apply them, and
 * the accounts that pass are read again in the encoding asked unless that is base64 whole.
 * An ER entry replaces a base entry of the same key. The answer's context is the base
 * chain's. A program without delegated accounts gets the base chain's answer byte for byte.
 */
export function getProgramAccountsMethod(parts: ForwardingParts): MethodDefinition<Params, unknown> {
  const { routing, caller, caps, programDelegations: delegations } = parts;
  const base = routing.baseChain;
  return defineMethod<Params, unknown>({
    name: 'getProgramAccounts',
    summary:
      "The base chain's accounts of the program, and those of them delegated now as their ERs hold them.",
    params: getProgramAccountsParamsSchema,
    handler: async (given, ctx) => {
      const [program, config] = given;
      // Judged before any call, so that the answer does not depend on whether the program
      // has a delegated account now.
      const filter = dataFilterOf(config?.filters);
      if (filter instanceof RpcError) throw filter;
      const call = { signal: ctx.signal, maxReplyBytes: caps.accounts };
      const fromBase = caller.forward(base, 'getProgramAccounts', given, { ...call, answering: ctx });
      const delegated = delegations.of(program, { ...call, commitment: config?.commitment });
      // The base chain's own error first (bad params are its to judge).
      delegated.catch(() => undefined);
      const answer = await fromBase;
      const found = await delegated;
      if (found.length === 0) return answer;
      const fromErs = await readDelegated(parts, found, config ?? null, filter, ctx);
      return merged(parts, answer, fromErs, new Set(found.map((d) => d.account)));
    },
  });
}

/**
 * The delegated accounts that pass `filter`, as their ERs wrote them, in `found`'s order.
 * An account delegated to an ER routing may not use (not listed, or not allowed) is left
 * out, as the base chain leaves it out: anyone may delegate an account of an open program
 * to an ER of their own, and that must not make the program's list fail for every client.
 */
async function readDelegated(
  parts: ForwardingParts,
  found: readonly ProgramDelegation[],
  config: Config,
  filter: DataFilter,
  ctx: CallContext,
): Promise<Map<string, AccountText>> {
  const byEr = new Map<string, { er: Upstream; keys: string[] }>();
  const unusable = new Map<string, string[]>();
  for (const { account, authority } of found) {
    const looked = parts.routing.ers.lookup(authority);
    if (!looked.ok) {
      (unusable.get(authority) ?? unusable.set(authority, []).get(authority)!).push(account);
      continue;
    }
    const er = looked.er;
    (byEr.get(er.name) ?? byEr.set(er.name, { er, keys: [] }).get(er.name)!).keys.push(account);
  }
  if (unusable.size > 0)
    ctx.log.warn(
      { delegatedTo: Object.fromEntries(unusable) },
      'getProgramAccounts: accounts delegated to ERs routing may not use are left out',
    );
  const read = new Map<string, AccountText>();
  await Promise.all(
    [...byEr.values()].map(async ({ er, keys }) => {
      for (const [key, account] of await readFiltered(parts, er, keys, config, filter, ctx)) {
        read.set(key, account);
      }
    }),
  );
  const ordered = new Map<string, AccountText>();
  for (const { account } of found) {
    const text = read.get(account);
    if (text !== undefined) ordered.set(account, text);
  }
  return ordered;
}

const hasFilters = (config: Config): boolean =>
  Array.isArray(config?.filters) && (config.filters as unknown[]).length > 0;

/** `keys` as `er` holds them, with the call's encoding and slice, those that pass `filter` only. */
async function readFiltered(
  parts: ForwardingParts,
  er: Upstream,
  keys: readonly string[],
  config: Config,
  filter: DataFilter,
  ctx: CallContext,
): Promise<Map<string, AccountText>> {
  const commitment = config?.commitment === undefined ? {} : { commitment: config.commitment };
  // getProgramAccounts writes data as a base58 string unless an encoding is named.
  const asked = {
    encoding: config?.encoding ?? 'binary',
    ...(config?.dataSlice === undefined ? {} : { dataSlice: config.dataSlice }),
    ...commitment,
  };
  if (!hasFilters(config)) return readAccounts(parts, er, keys, asked, ctx);
  const whole = await readAccounts(parts, er, keys, { encoding: 'base64', ...commitment }, ctx);
  const passed = [...whole].filter(([, account]) => filter(dataOf(account.value)));
  if (asked.encoding === 'base64' && asked.dataSlice === undefined) return new Map(passed);
  return readAccounts(
    parts,
    er,
    passed.map(([key]) => key),
    asked,
    ctx,
  );
}

/** The base64 data of an account value read with encoding base64. */
function dataOf(value: unknown): Uint8Array {
  const data = (value as { data?: unknown }).data;
  return Array.isArray(data) && typeof data[0] === 'string'
    ? Buffer.from(data[0], 'base64')
    : new Uint8Array();
}

/**
 * `keys` as `er` holds them, read with `config`, in `keys`' order, its chunks asked all at
 * once; an account the ER does not hold is left out. Its accounts go into the answer, so
 * the ER is named among those that answered.
 */
async function readAccounts(
  { caller, caps }: ForwardingParts,
  er: Upstream,
  keys: readonly string[],
  config: object,
  ctx: CallContext,
): Promise<Map<string, AccountText>> {
  const chunks: string[][] = [];
  for (let i = 0; i < keys.length; i += MAX_KEYS_PER_READ) chunks.push(keys.slice(i, i + MAX_KEYS_PER_READ));
  const lists = await Promise.all(
    chunks.map(async (chunk) => {
      const answer = await caller.forward(er, 'getMultipleAccounts', [chunk, config], {
        signal: ctx.signal,
        maxReplyBytes: caps.accounts,
        answering: ctx,
      });
      return accountListOf(caller, er, answer, chunk.length);
    }),
  );
  const read = new Map<string, AccountText>();
  chunks.forEach((chunk, c) => {
    const { texts, values } = lists[c]!;
    chunk.forEach((key, k) => {
      if (values[k] !== null) read.set(key, { text: texts[k]!, value: values[k] });
    });
  });
  return read;
}

/**
 * The base chain's list with the ERs' accounts: an ER's entry in place of a base entry of
 * the same key, the others after the base entries, in the shape the call asked for
 * (withContext: the base chain's context around the list). A base entry of a `delegated`
 * account the ER's data filtered out goes too: the base chain's copy is not its state.
 */
function merged(
  { routing, caller }: ForwardingParts,
  answer: RawJson,
  fromErs: Map<string, AccountText>,
  delegated: ReadonlySet<string>,
): RawJson {
  const withContext = !Array.isArray(answer.value);
  const list = withContext ? (answer.value as { value?: unknown } | null)?.value : answer.value;
  const listText = withContext ? memberText(answer.json, 'value') : answer.json;
  const texts = listText === undefined ? undefined : elementTexts(listText);
  const context = withContext ? memberText(answer.json, 'context') : undefined;
  if (!Array.isArray(list) || texts?.length !== list.length || (withContext && context === undefined)) {
    throw caller.badReply(routing.baseChain, 'getProgramAccounts', 'no list of keyed accounts');
  }
  const entryText = (key: string, account: AccountText): string =>
    `{"pubkey":${JSON.stringify(key)},"account":${account.text}}`;
  const outTexts: string[] = [];
  const outValues: unknown[] = [];
  const placed = new Set<string>();
  list.forEach((entry, i) => {
    const key = (entry as { pubkey?: unknown } | null)?.pubkey;
    const er = typeof key === 'string' ? fromErs.get(key) : undefined;
    if (er === undefined && typeof key === 'string' && delegated.has(key)) return;
    if (er === undefined) {
      outTexts.push(texts[i]!);
      outValues.push(entry);
    } else if (!placed.has(key as string)) {
      placed.add(key as string);
      outTexts.push(entryText(key as string, er));
      outValues.push({ pubkey: key, account: er.value });
    }
  });
  for (const [key, account] of fromErs) {
    if (placed.has(key)) continue;
    outTexts.push(entryText(key, account));
    outValues.push({ pubkey: key, account: account.value });
  }
  const listOut = `[${outTexts.join(',')}]`;
  if (!withContext) return new RawJson(listOut, outValues);
  return new RawJson(`{"context":${context!},"value":${listOut}}`, {
    context: (answer.value as { context?: unknown }).context,
    value: outValues,
  });
}
