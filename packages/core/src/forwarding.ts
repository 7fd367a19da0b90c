import type { Logger } from 'pino';
import type { AddressGuard } from './address-guard.js';
import type { CallContext } from './call-context.js';
import { CallContextImpl, endingOf, type CallEnding } from './call.js';
import { RpcError } from './errors.js';
import { upstreamCallOutcome, type JsonRpcClient, type JsonRpcOutcome } from './jsonrpc-client.js';
import type { ProviderSet } from './provider-set.js';
import type { UpstreamCallOutcome } from './upstream-call.js';
import { defineMethod, type MaybePromise, type MethodDefinition, type Schema } from './method.js';
import type { DeclaredError } from './plugin.js';
import { RawJson } from './raw-json.js';
import { resultText } from './result-text.js';

/** A JSON-RPC node calls are forwarded to: `name` is what errors, logs and metrics show; `url` is only called. */
export interface ForwardTarget {
  readonly name: string;
  readonly url: string;
  /** What every connection to `url` goes through, for a node anyone could name (see AddressGuard). */
  readonly addressGuard?: AddressGuard;
  /**
   * Several providers of one node (a chain's RPC providers): calls go through the set, which
   * picks a healthy one; `url` is then not called. Each attempt is reported under
   * `<name>:<provider>` when the set has more than one.
   */
  readonly providers?: ProviderSet;
}

export interface ForwarderOptions<T extends ForwardTarget = ForwardTarget> {
  readonly timeoutMs: number;
  /**
   * The plugin's own codes: `unavailable` when no usable answer came (data `{ upstream, kind }`),
   * `tooLarge` when the reply passed its cap (data `{ upstream, method, limitBytes }`).
   */
  readonly errors: { readonly unavailable: DeclaredError; readonly tooLarge: DeclaredError };
  /** Where the details of a failure go (an HTTP status, a host): never to the client. */
  readonly log?: () => Logger | undefined;
  /** Told of every call: which node, how it ended, how long it took. */
  readonly observe?: (target: T, outcome: UpstreamCallOutcome, ms: number) => void;
  /**
   * A node's label in provenance (CallContext.answeredBy): from a bounded set, so that the
   * nodes anyone can register do not grow the metrics. Default: its `name`.
   */
  readonly labelOf?: (target: T) => string;
}

export interface ForwardCall {
  /** The call to tell which node answered it (its result or its own error): CallContext.answeredBy. */
  readonly answering?: Pick<CallContext, 'answeredBy'>;
  /** The caller's own end (the call's signal): writes do not pass one, so they are followed to their answer. */
  readonly signal?: AbortSignal;
  /** The same followed without a signal (the call's context, see CallEnding); `signal` is then not read. */
  readonly ending?: CallEnding;
  /** This call's reply cap; default the client's. */
  readonly maxReplyBytes?: number;
  /** A write (a transaction): never hedged, and sent to another provider only when the first cannot have taken it. */
  readonly write?: boolean;
}

/**
 * Calls JSON-RPC nodes on behalf of the service's clients, over the project's JSON-RPC
 * client. A node's own JSON-RPC error reaches the caller unchanged (code, message, data).
 * No usable answer is the plugin's `unavailable` error naming the node, never locating it:
 * what went wrong in detail (an HTTP status, a body, an address) goes to the log only.
 */
export class Forwarder<T extends ForwardTarget = ForwardTarget> {
  /** Each target as `observe` is told of one provider's attempt, made once per (target, provider). */
  private readonly perProvider = new WeakMap<T, Map<string, T>>();

  constructor(
    private readonly client: JsonRpcClient,
    private readonly options: ForwarderOptions<T>,
  ) {}

  /** The result of `method` on `target`, parsed: for the plugin's own use of it. */
  async call<R>(target: T, method: string, params: unknown, call: ForwardCall = {}): Promise<R> {
    return (await this.exchange(target, method, params, call)).value as R;
  }

  /** The result of `method` on `target` as the node wrote it, byte for byte: for the client. */
  forward(target: T, method: string, params: unknown, call: ForwardCall = {}): Promise<RawJson> {
    return this.exchange(target, method, params, call).then(({ value, text }) => {
      const raw = resultText(text);
      return raw === undefined ? RawJson.of(value) : new RawJson(raw, value);
    });
  }

  /** A node's label in provenance (ForwarderOptions.labelOf). */
  labelOf(target: T): string {
    return this.options.labelOf?.(target) ?? target.name;
  }

  /** The `unavailable` error for an answer that is not what the method returns. */
  badReply(target: T, method: string, detail: string): RpcError {
    return this.unavailable(target, method, 'bad_reply', detail);
  }

  close(): Promise<void> {
    return this.client.close();
  }

  // Promise chains, not async functions: a forwarded call's answer passes through each of
  // these, and every async function it leaves is another turn of the microtask queue.
  private exchange(
    target: T,
    method: string,
    params: unknown,
    call: ForwardCall,
  ): Promise<{ value: unknown; text: string }> {
    try {
      return this.send(target, method, params, call);
    } catch (err) {
      // As from an async function: params JSON cannot hold (a BigInt) are a rejection.
      return Promise.reject(err as Error);
    }
  }

  private send(
    target: T,
    method: string,
    params: unknown,
    call: ForwardCall,
  ): Promise<{ value: unknown; text: string }> {
    const spec = {
      method,
      params,
      timeoutMs: this.options.timeoutMs,
      signal: call.signal,
      ending: call.ending,
      maxReplyBytes: call.maxReplyBytes,
      addressGuard: target.addressGuard,
      upstream: target.name,
    };
    const observe = this.options.observe;
    if (target.providers !== undefined) {
      const { providers } = target;
      const providerCall = {
        ...spec,
        // A set hedges and moves on by signals of its own, made from the caller's.
        signal: call.signal ?? call.ending?.signal,
        ending: undefined,
        write: call.write,
        onAttempt:
          observe &&
          ((provider: string, attempt: JsonRpcOutcome, ms: number) => {
            const named = providers.size > 1 ? this.asProvider(target, provider) : target;
            observe(named, upstreamCallOutcome(attempt), ms);
          }),
      };
      return providers.call(providerCall).then((outcome) => this.answerOf(target, method, call, outcome));
    }
    const started = performance.now();
    return this.client.call(target.url, spec).then((outcome) => {
      observe?.(target, upstreamCallOutcome(outcome), performance.now() - started);
      return this.answerOf(target, method, call, outcome);
    });
  }

  /** `target` named `<name>:<provider>`, for what observes one provider's attempt. */
  private asProvider(target: T, provider: string): T {
    let named = this.perProvider.get(target);
    if (named === undefined) this.perProvider.set(target, (named = new Map()));
    let renamed = named.get(provider);
    if (renamed === undefined)
      named.set(provider, (renamed = { ...target, name: `${target.name}:${provider}` }));
    return renamed;
  }

  private answerOf(
    target: T,
    method: string,
    call: ForwardCall,
    outcome: JsonRpcOutcome,
  ): { value: unknown; text: string } {
    if (outcome.kind === 'reply') {
      const { reply, text } = outcome;
      call.answering?.answeredBy(this.labelOf(target));
      if (reply.error != null) {
        const { code, message, data } = reply.error;
        throw new RpcError(code, message, data);
      }
      return { value: reply.result, text };
    }
    if (outcome.kind === 'bad_reply' && outcome.problem === 'too_large') {
      throw RpcError.from(this.options.errors.tooLarge, {
        upstream: target.name,
        method,
        limitBytes: call.maxReplyBytes,
      });
    }
    const detail = outcome.kind === 'bad_reply' ? `${outcome.problem}: ${outcome.detail}` : outcome.detail;
    throw this.unavailable(target, method, outcome.kind, detail);
  }

  private unavailable(target: T, method: string, kind: string, detail: string): RpcError {
    if (kind !== 'aborted') {
      this.options.log?.()?.warn({ upstream: target.name, method, kind, detail }, 'upstream call failed');
    }
    return RpcError.from(this.options.errors.unavailable, { upstream: target.name, kind });
  }
}

/** One method whose calls go to a node chosen per call, and whose answers come back as the node wrote them. */
export interface ForwardedMethod<P extends readonly unknown[], T extends ForwardTarget, C = unknown> {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  /** The params schema; the node checks them further. */
  readonly params: Schema;
  /** Where this call goes. */
  readonly targetOf: (params: P, ctx: CallContext<C>) => MaybePromise<T>;
  /** Its reply cap; default the client's. */
  readonly maxReplyBytes?: number;
  /** A write: followed to its answer even when its caller leaves (never retried by the client either). */
  readonly write?: boolean;
}

/**
 * Methods forwarded to nodes chosen per call, with their params as given and their results
 * as the node wrote them: what a plugin needs to put a JSON-RPC node (a Solana validator,
 * an EVM node, a service of one's own) behind the service, method by method. Each call
 * names the node that answered it (CallContext.answeredBy, by the forwarder's labelOf).
 */
export function forwardedMethods<T extends ForwardTarget, C = unknown>(
  forwarder: Forwarder<T>,
  methods: readonly ForwardedMethod<never, T, C>[],
): MethodDefinition<unknown[], unknown, C>[] {
  return methods.map((m) =>
    defineMethod<unknown[], unknown, C>({
      name: m.name,
      summary: m.summary,
      description: m.description,
      params: m.params,
      handler: (params, ctx) => {
        const send = (target: T): Promise<RawJson> =>
          forwarder.forward(target, m.name, params, {
            ending: m.write ? undefined : ctx instanceof CallContextImpl ? ctx : endingOf(ctx.signal),
            maxReplyBytes: m.maxReplyBytes,
            write: m.write,
            answering: ctx,
          });
        const target = m.targetOf((params ?? []) as never, ctx);
        return target instanceof Promise ? target.then(send) : send(target);
      },
    }),
  );
}
