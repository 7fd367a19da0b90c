import { JsonRpcClient, RpcError, type JsonRpcOutcome } from '@rollup-router/core';
import { DelegationError } from '../errors.js';
import { shownUpstream, type Upstream } from './upstream.js';

/**
 * Calls the base chain and the ERs over the core's JSON-RPC client. An upstream's own
 * JSON-RPC error (a preflight failure, an unknown account) reaches the caller unchanged:
 * code, message and data as the node sent them. No answer at all is -32071, naming the
 * upstream and why.
 */
export class UpstreamCaller {
  constructor(
    private readonly client: JsonRpcClient,
    private readonly timeoutMs: number,
  ) {}

  async call<T>(upstream: Upstream, method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    const outcome = await this.client.call(upstream.url, {
      method,
      params,
      timeoutMs: this.timeoutMs,
      signal,
      addressGuard: upstream.addressGuard,
    });
    return resultOf<T>(upstream, outcome);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** -32071 for an answer that is not what the method returns. */
export const badReply = (upstream: Upstream, detail: string): RpcError =>
  RpcError.from(DelegationError.UPSTREAM_UNAVAILABLE, {
    upstream: shownUpstream(upstream),
    kind: 'bad_reply',
    detail,
  });

function resultOf<T>(upstream: Upstream, outcome: JsonRpcOutcome): T {
  if (outcome.kind === 'reply') {
    const { reply } = outcome;
    if (reply.error != null) {
      const { code, message, data } = reply.error;
      throw new RpcError(code, message, data);
    }
    return reply.result as T;
  }
  const why = outcome.kind === 'bad_reply' ? `${outcome.problem}: ${outcome.detail}` : outcome.detail;
  throw RpcError.from(DelegationError.UPSTREAM_UNAVAILABLE, {
    upstream: shownUpstream(upstream),
    kind: outcome.kind,
    detail: why,
  });
}
