import { RpcError, type DeclaredError, type RpcErrorObject } from '@rollup-router/core';
import { StatusesError } from '../errors.js';
import type { UpstreamFailureKind } from './call-upstream.js';

// The plugin's error codes are referred to in this module only.

/** One upstream that could not answer, as reported in logs and in the error's `data`. */
export interface UpstreamFailure {
  /** The upstream's URL, redacted. */
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

/** No upstream is configured or available. */
export const noUpstreamError = (): RpcError => RpcError.from(StatusesError.NO_UPSTREAM);

/**
 * The error of a lookup no upstream could answer. An upstream's own JSON-RPC error wins
 * (it is the most specific thing anyone said); otherwise the cause closest to an answer:
 * a bad answer, then a timeout, then no connection at all.
 */
export function failureError(failures: readonly UpstreamFailure[]): RpcError {
  if (failures.length === 0) return noUpstreamError();
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
