import {
  compileSchema,
  JsonRpcClient,
  type JsonRpcAnswered,
  type JsonRpcOutcome,
  type RpcErrorObject,
} from '@rollup-router/core';
import { getSignatureStatusesResultSchema, type GetSignatureStatusesResult } from '../generated/schemas.js';
import { statusMatchesErr } from '../status.js';
import type { UpstreamTarget } from './directory.js';

export type UpstreamFailureKind = 'timeout' | 'unreachable' | 'bad_response' | 'aborted';

export type UpstreamOutcome =
  | { readonly kind: 'ok'; readonly result: GetSignatureStatusesResult }
  | { readonly kind: 'rpc_error'; readonly error: RpcErrorObject }
  | { readonly kind: UpstreamFailureKind; readonly detail: string };

/**
 * The client for the upstreams: one keep-alive pool per upstream URL, answers capped at the
 * client's default (a status answer is a few hundred bytes per signature, 256 at most).
 */
export const upstreamClient = (connectionsPerUpstream: number, maxPools: number): JsonRpcClient =>
  new JsonRpcClient({ connections: connectionsPerUpstream, maxPools });

const validateResult = compileSchema<GetSignatureStatusesResult>(getSignatureStatusesResultSchema);

/** Told of each request made for a call: the upstream's label (`<label>:<provider>` for one of several providers), what came of it, how long it took. */
export type UpstreamAttemptReport = (label: string, kind: UpstreamOutcome['kind'], ms: number) => void;

/**
 * Asks one upstream for the statuses of `signatures` (at most 256), reporting each request
 * made. Never throws: every failure is an outcome. A connection error is retried once (an
 * upstream of several providers goes to the next one instead); a timeout never is (the
 * upstream may still be working on it, and the deadline is already half spent).
 */
export async function callUpstream(
  client: JsonRpcClient,
  target: UpstreamTarget,
  signatures: readonly string[],
  searchTransactionHistory: boolean,
  signal: AbortSignal,
  report: UpstreamAttemptReport,
): Promise<UpstreamOutcome> {
  const call = {
    method: 'getSignatureStatuses',
    params: searchTransactionHistory ? [signatures, { searchTransactionHistory: true }] : [signatures],
    timeoutMs: target.timeoutMs,
    signal,
    upstream: target.name,
  };
  const { providers } = target;
  if (providers === undefined) {
    const started = performance.now();
    const outcome = outcomeOf(
      await client.call(target.url, { ...call, connectionRetries: 1, addressGuard: target.addressGuard }),
      signatures.length,
      signal,
    );
    report(target.label, outcome.kind, performance.now() - started);
    return outcome;
  }
  // The outcome a read returns is its last attempt's, already judged when reported.
  let last: { readonly attempt: JsonRpcOutcome; readonly outcome: UpstreamOutcome } | undefined;
  const answer = await providers.call({
    ...call,
    onAttempt: (provider, attempt, ms) => {
      last = { attempt, outcome: outcomeOf(attempt, signatures.length, signal) };
      report(providers.size > 1 ? `${target.label}:${provider}` : target.label, last.outcome.kind, ms);
    },
  });
  return last?.attempt === answer ? last.outcome : outcomeOf(answer, signatures.length, signal);
}

function outcomeOf(outcome: JsonRpcOutcome, expected: number, signal: AbortSignal): UpstreamOutcome {
  if (outcome.kind === 'reply' || outcome.kind === 'bad_reply') return statusesOf(outcome, expected);
  if (outcome.kind !== 'aborted') return { kind: outcome.kind, detail: outcome.detail };
  // The lookup's own deadline is a timeout; every caller gone is not.
  const deadline = (signal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
  return deadline
    ? { kind: 'timeout', detail: 'lookup deadline passed' }
    : { kind: 'aborted', detail: 'every caller went away' };
}

/** What a reply says about the statuses asked: an upstream's JSON-RPC error passes through. */
function statusesOf(outcome: JsonRpcAnswered, expected: number): UpstreamOutcome {
  const bad = (detail: string): UpstreamOutcome => ({ kind: 'bad_response', detail });
  if (outcome.httpStatus >= 500) return bad(`HTTP ${outcome.httpStatus}`);
  if (outcome.kind === 'bad_reply') return bad(outcome.detail);
  const { error, result } = outcome.reply;
  if (error) {
    const { code, message, data } = error;
    return { kind: 'rpc_error', error: data === undefined ? { code, message } : { code, message, data } };
  }
  if (outcome.httpStatus !== 200) return bad(`HTTP ${outcome.httpStatus}`);
  if (!validateResult(result)) {
    const f = validateResult.failure('/result');
    return bad(`result ${f.path} ${f.message} (${f.rule})`);
  }
  if (result.value.length !== expected)
    return bad(`${result.value.length} statuses for ${expected} signatures`);
  if (!result.value.every((s) => s === null || statusMatchesErr(s.status, s.err))) {
    return bad('a status whose status and err disagree');
  }
  return { kind: 'ok', result };
}
