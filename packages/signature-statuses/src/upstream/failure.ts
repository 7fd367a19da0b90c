import { RpcError, type DeclaredError, type RpcErrorObject } from '@rollup-router/core';
import { StatusesError } from '../errors.js';
import type { UpstreamFailureKind } from './call-upstream.js';

/** One upstream that could not answer, as reported in logs and in the error's `data`. */
export interface UpstreamFailure {
  /** The upstream's URL with path and query hidden. */
  readonly url: string;
  readonly cause: UpstreamFailureKind | 'rpc_error';
  readonly detail: string;
  /** The upstream's own JSON-RPC error, passed to the caller unchanged when no upstream answered. */
  readonly error?: RpcErrorObject;
}

const CODE_OF: Readonly<Record<UpstreamFailureKind, DeclaredError>> = {
  bad_response: StatusesError.UPSTREAM_BAD_RESPONSE,
  timeout: StatusesError.UPSTREAM_TIMEOUT,
  aborted: StatusesError.UPSTREAM_TIMEOUT,
  unreachable: StatusesError.UPSTREAM_UNREACHABLE,
};

/**
 * The error of a lookup no upstream could answer. An upstream's own JSON-RPC error wins
 * (it is the most specific thing anyone said); otherwise the cause closest to an answer:
 * a bad answer, then a timeout, then no connection at all.
 */
export function failureError(failures: readonly UpstreamFailure[]): RpcError {
  if (failures.length === 0) return RpcError.from(StatusesError.NO_UPSTREAM);
  const passed = failures.find((f) => f.error !== undefined)?.error;
  if (passed) return new RpcError(passed.code, passed.message, passed.data);
  const kinds = new Set(failures.map((f) => f.cause));
  const kind: UpstreamFailureKind = kinds.has('bad_response')
    ? 'bad_response'
    : kinds.has('timeout')
      ? 'timeout'
      : kinds.has('aborted')
        ? 'aborted'
        : 'unreachable';
  return RpcError.from(CODE_OF[kind], {
    upstreams: failures.map(({ url, cause, detail }) => ({ url, cause, detail })),
  });
}
