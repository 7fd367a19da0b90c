import { compileSchema, JsonRpcClient, type JsonRpcAnswered, type RpcErrorObject } from '@rollup-router/core';
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

/**
 * Asks one upstream for the statuses of `signatures` (at most 256). Never throws: every
 * failure is an outcome. A connection error is retried once; a timeout never is (the
 * upstream may still be working on it, and the deadline is already half spent).
 */
export async function callUpstream(
  client: JsonRpcClient,
  target: UpstreamTarget,
  signatures: readonly string[],
  searchTransactionHistory: boolean,
  signal: AbortSignal,
): Promise<UpstreamOutcome> {
  const outcome = await client.call(target.url, {
    method: 'getSignatureStatuses',
    params: searchTransactionHistory ? [signatures, { searchTransactionHistory: true }] : [signatures],
    timeoutMs: target.timeoutMs,
    signal,
    connectionRetries: 1,
    addressGuard: target.addressGuard,
    upstream: target.name,
  });
  if (outcome.kind === 'reply' || outcome.kind === 'bad_reply') return statusesOf(outcome, signatures.length);
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
