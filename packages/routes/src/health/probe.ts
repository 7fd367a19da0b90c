import type { AddressGuard, JsonRpcClient } from '@rollup-router/core';

/** Why a probe failed, coarse enough to be a metrics label. */
export type ProbeFailureKind = 'timeout' | 'unreachable' | 'http-status' | 'bad-response' | 'rpc-error';

export type ProbeOutcome =
  | { readonly ok: true; readonly latencyMs: number }
  | {
      readonly ok: false;
      readonly latencyMs: number;
      readonly kind: ProbeFailureKind;
      readonly message: string;
    };

export interface ProbeRequest {
  readonly url: string;
  readonly method: string;
  readonly timeoutMs: number;
  readonly client: JsonRpcClient;
  /** A chain node's: its probes connect only where the guard allows. */
  readonly addressGuard?: AddressGuard;
  /** Aborts the probe when the registry stops or forgets the node. */
  readonly signal: AbortSignal;
}

/** One JSON-RPC call to a node; any JSON-RPC success with HTTP 200 within the timeout is healthy. */
export async function probe(req: ProbeRequest): Promise<ProbeOutcome> {
  const started = performance.now();
  const outcome = await req.client.call(req.url, {
    method: req.method,
    id: 1,
    timeoutMs: req.timeoutMs,
    signal: req.signal,
    addressGuard: req.addressGuard,
  });
  const latencyMs = performance.now() - started;
  const fail = (kind: ProbeFailureKind, message: string): ProbeOutcome => ({
    ok: false,
    kind,
    message,
    latencyMs,
  });
  switch (outcome.kind) {
    case 'timeout':
    case 'unreachable':
      return fail(outcome.kind, outcome.detail);
    case 'aborted':
      return fail('unreachable', 'probe cancelled');
    default:
      break;
  }
  if (outcome.httpStatus !== 200) return fail('http-status', `HTTP ${outcome.httpStatus}`);
  if (outcome.kind === 'bad_reply') return fail('bad-response', outcome.detail);
  const { error } = outcome.reply;
  if (error) return fail('rpc-error', `JSON-RPC error ${error.code}: ${error.message}`);
  return { ok: true, latencyMs };
}
