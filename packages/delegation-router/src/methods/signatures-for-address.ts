import { defineMethod, elementTexts, RawJson, type MethodDefinition } from '@rollup-router/core';
import { getSignaturesForAddressParamsSchema } from '../generated/schemas.js';
import type { Upstream } from '../upstream/upstream.js';
import type { ForwardingParts } from './forwarded-methods.js';

type Config = {
  readonly limit?: number;
  readonly before?: string;
  readonly until?: string;
  readonly commitment?: unknown;
  readonly minContextSlot?: unknown;
} | null;

type Params = [string, Config?];

/** Agave's default and largest `limit`. */
const MAX_LIMIT = 1000;

/** Which of the two lists a cursor signature is in. */
type Chain = 'er' | 'base';

/**
 * getSignaturesForAddress: for an account delegated now, one list, the ER's signatures
 * (newest first) then the base chain's, `limit` counted over both. A cursor names its
 * chain: the ER is asked whether it holds it (getSignatureStatuses), so `before` an ER
 * signature continues in the ER's list and then the base chain's from its newest, and
 * `before` a base-chain one asks the base chain only; `until` an ER signature ends in the
 * ER's list. The base chain's part carries the call's minContextSlot, the ER's does not
 * (its slots count on a clock of its own). An account not delegated gets the base chain's
 * answer byte for byte.
 */
export function getSignaturesForAddressMethod(parts: ForwardingParts): MethodDefinition<Params, unknown> {
  const { routing, caller, caps } = parts;
  const base = routing.baseChain;
  return defineMethod<Params, unknown>({
    name: 'getSignaturesForAddress',
    summary:
      "An address's signatures: for an account delegated now, its ER's (newest first), then the base chain's.",
    params: getSignaturesForAddressParamsSchema,
    handler: async (given, ctx) => {
      const [account, config] = given;
      // Each of these forwards is (part of) the answer: its chain is named as answering.
      const call = { signal: ctx.signal, maxReplyBytes: caps.large, answering: ctx };
      const record = await routing.source.recordOf(account);
      if (record === null) return caller.forward(base, 'getSignaturesForAddress', given, call);
      const er = routing.erOfRecord(record);
      const { limit = MAX_LIMIT, before, until, commitment, minContextSlot } = config ?? {};
      const [beforeIn, untilIn] = await Promise.all([
        chainOf(parts, er, before, ctx.signal),
        chainOf(parts, er, until, ctx.signal),
      ]);
      const common = commitment === undefined ? {} : { commitment };
      const baseConfig = (count: number) => ({
        limit: count,
        ...(beforeIn === 'base' ? { before } : {}),
        ...(untilIn === 'base' ? { until } : {}),
        ...common,
        ...(minContextSlot === undefined ? {} : { minContextSlot }),
      });
      if (beforeIn === 'base') {
        return caller.forward(base, 'getSignaturesForAddress', [account, baseConfig(limit)], call);
      }
      const erConfig = {
        limit,
        ...(before === undefined ? {} : { before }),
        ...(untilIn === 'er' ? { until } : {}),
        ...common,
      };
      const fromEr = await caller.forward(er, 'getSignaturesForAddress', [account, erConfig], call);
      const erList = listOf(parts, er, fromEr);
      if (untilIn === 'er' || erList.values.length >= limit) return fromEr;
      const fromBase = await caller.forward(
        base,
        'getSignaturesForAddress',
        [account, baseConfig(limit - erList.values.length)],
        call,
      );
      const baseList = listOf(parts, base, fromBase);
      return new RawJson(`[${[...erList.texts, ...baseList.texts].join(',')}]`, [
        ...erList.values,
        ...baseList.values,
      ]);
    },
  });
}

/**
 * Which list `signature` is in: the ER's when the ER knows it, else the base chain's
 * (undefined for no cursor). A signature the ER no longer holds (its ledger is short)
 * counts as the base chain's, which answers an empty list for one it does not know either.
 */
async function chainOf(
  { caller, caps }: ForwardingParts,
  er: Upstream,
  signature: string | undefined,
  signal: AbortSignal,
): Promise<Chain | undefined> {
  if (signature === undefined) return undefined;
  const statuses = await caller.call<{ value?: unknown[] } | null>(
    er,
    'getSignatureStatuses',
    [[signature], { searchTransactionHistory: true }],
    { signal, maxReplyBytes: caps.small },
  );
  const value = statuses?.value;
  if (!Array.isArray(value) || value.length !== 1) {
    throw caller.badReply(er, 'getSignatureStatuses', 'no status list of one');
  }
  return value[0] === null ? 'base' : 'er';
}

/** A signature list as a chain wrote it: each entry's text and value. */
function listOf(
  { caller }: ForwardingParts,
  upstream: Upstream,
  answer: RawJson,
): { texts: string[]; values: unknown[] } {
  const texts = elementTexts(answer.json);
  if (!Array.isArray(answer.value) || texts?.length !== answer.value.length) {
    throw caller.badReply(upstream, 'getSignaturesForAddress', 'no signature list');
  }
  return { texts, values: answer.value as unknown[] };
}
