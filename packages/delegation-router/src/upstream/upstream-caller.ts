import { JsonRpcClient, RpcError, type JsonRpcOutcome, type PluginContext } from '@rollup-router/core';
import { DelegationError } from '../errors.js';
import type { Upstream } from './upstream.js';

type Logger = PluginContext['log'];

/**
 * Calls the base chain and the ERs over the core's JSON-RPC client. An upstream's own
 * JSON-RPC error (a preflight failure, an unknown account) reaches the caller unchanged:
 * code, message and data as the node sent them. No answer at all is -32071 naming the
 * upstream and the kind of failure; what went wrong in detail (an HTTP status, a body, an
 * address) goes to the log only: an ER anyone registered must not learn what our network
 * answers through our clients, nor a client where our base chain lives.
 */
export class UpstreamCaller {
  constructor(
    private readonly client: JsonRpcClient,
    private readonly timeoutMs: number,
    private readonly log: () => Logger | undefined = () => undefined,
  ) {}

  async call<T>(upstream: Upstream, method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    const outcome = await this.client.call(upstream.url, {
      method,
      params,
      timeoutMs: this.timeoutMs,
      signal,
    });
    if (outcome.kind === 'reply') {
      const { reply } = outcome;
      if (reply.error != null) {
        const { code, message, data } = reply.error;
        throw new RpcError(code, message, data);
      }
      return reply.result as T;
    }
    throw this.unavailable(upstream, method, outcome);
  }

  /** -32071 for an answer that is not what the method returns. */
  badReply(upstream: Upstream, method: string, detail: string): RpcError {
    return this.unavailable(upstream, method, { kind: 'bad_reply', detail });
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private unavailable(
    upstream: Upstream,
    method: string,
    outcome: Exclude<JsonRpcOutcome, { kind: 'reply' }> | { kind: 'bad_reply'; detail: string },
  ): RpcError {
    const detail =
      outcome.kind === 'bad_reply' && 'problem' in outcome
        ? `${outcome.problem}: ${outcome.detail}`
        : outcome.detail;
    if (outcome.kind !== 'aborted') {
      this.log()?.warn(
        { upstream: upstream.name, method, kind: outcome.kind, detail },
        'upstream call failed',
      );
    }
    return RpcError.from(DelegationError.UPSTREAM_UNAVAILABLE, {
      upstream: upstream.name,
      kind: outcome.kind,
    });
  }
}
