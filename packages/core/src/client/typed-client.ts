import type { MethodDefinition } from '../method.js';
import type { RawJson } from '../raw-json.js';
import type { SubscriptionDefinition } from '../subscriptions/definition.js';
import { RpcNoAnswerError, type WireErrorsName } from './errors.js';
import { HttpLink } from './http-link.js';
import type { CallOptions, Link, LinkCall, Settled } from './link.js';
import { WebSocketLink } from './websocket-link.js';

/**
 * The methods a client calls, by name: the server's own definitions, e.g.
 * `{ getRoutes: ReturnType<typeof getRoutesMethod>; mySum: typeof mySum }`.
 */
export type MethodMap = Readonly<Record<string, MethodDefinition<never, unknown, never>>>;
/** The subscriptions a client opens, by subscribe method name (WebSocket only). */
export type SubscriptionMap = Readonly<Record<string, SubscriptionDefinition<never, unknown, never>>>;
/**
 * What a client is typed by: the server's methods and subscriptions by name, as `ApiOf` infers
 * them (a MethodMap, with no subscriptions, is one too).
 */
export type ApiMap = Readonly<
  Record<string, MethodDefinition<never, unknown, never> | SubscriptionDefinition<never, unknown, never>>
>;
/** The names in `A` of its methods. */
type MethodNames<A> = {
  [K in keyof A & string]: A[K] extends MethodDefinition<never, unknown, never> ? K : never;
}[keyof A & string];
/** The names in `A` of its subscriptions (their subscribe methods). */
type SubscriptionNames<A> = {
  [K in keyof A & string]: A[K] extends SubscriptionDefinition<never, unknown, never> ? K : never;
}[keyof A & string];
/** The subscription a client opens by `K`: from the hand-written map `S` first, else from the API `A`. */
type SubscriptionOf<A, S, K> = K extends keyof S ? S[K] : K extends keyof A ? A[K] : never;

/** A method's params type, from its definition. */
export type ParamsOf<D> = D extends { readonly handler: (params: infer P, ...rest: never[]) => unknown }
  ? P
  : never;
/** A method's result type, from its definition (RawJson unwrapped). */
export type ResultOf<D> = D extends MethodDefinition<never, infer R, never> ? Unraw<R> : never;
type Unraw<R> = R extends RawJson<infer V> ? V : R;
type NotificationOf<D> = D extends SubscriptionDefinition<never, infer R, never> ? R : never;
type SubscribeParamsOf<D> = D extends { readonly start: (params: infer P, ...rest: never[]) => unknown }
  ? P
  : never;

/** Params may be left out when the method takes none (undefined or an empty list). */
type Args<P, O> = undefined extends P
  ? [params?: P, options?: O]
  : [] extends P
    ? [params?: P, options?: O]
    : [params: P, options?: O];

/** One call prepared for a batch, carrying its result type. */
export interface BatchCall<R> extends LinkCall {
  /** Type only: never set. */
  readonly resultType?: R;
}

/**
 * The client: one method per server method, typed by its definition, and the `$` operations;
 * `$subscribe` opens the API's subscriptions and those of `S` (a hand-written map).
 */
export type Client<M extends ApiMap, S extends SubscriptionMap = Record<never, never>> = {
  readonly [K in MethodNames<M>]: (...args: Args<ParamsOf<M[K]>, CallOptions>) => Promise<ResultOf<M[K]>>;
} & {
  /**
   * Sends calls as one JSON-RPC batch (one HTTP request, one WebSocket message): each
   * settles on its own (guards and errors are per call). Throws when the batch got no
   * answer, or was refused whole (rate limited, unauthorized).
   */
  readonly $batch: <const T extends readonly BatchCall<unknown>[]>(
    calls: (call: BatchBuilder<M>) => T,
    options?: CallOptions,
  ) => Promise<{ -readonly [I in keyof T]: Settled<T[I] extends BatchCall<infer R> ? R : never> }>;
  /**
   * Opens a subscription (WebSocket only): its notifications as an async iterable.
   * Breaking out of the loop (or `signal`) sends its unsubscribe call. When the socket
   * closes under it (the server, the network), the loop throws RpcNoAnswerError `closed`
   * with the close code and reason once the notifications already received are read;
   * `$close()` ends it quietly.
   */
  readonly $subscribe: <K extends (keyof S & string) | SubscriptionNames<M>>(
    subscribe: K,
    ...args: Args<SubscribeParamsOf<SubscriptionOf<M, S, K>>, SubscribeOptions>
  ) => Promise<Subscription<NotificationOf<SubscriptionOf<M, S, K>>>>;
  /** Closes the connections (the WebSocket, the HTTP pool). */
  readonly $close: () => Promise<void>;
};

export type BatchBuilder<M extends ApiMap> = {
  readonly [K in MethodNames<M>]: (...args: Args<ParamsOf<M[K]>, never>) => BatchCall<ResultOf<M[K]>>;
};

export interface SubscribeOptions extends CallOptions {
  /** The unsubscribe method. Default: the subscribe method's name with `Subscribe` replaced by `Unsubscribe` (Solana's convention). */
  readonly unsubscribe?: string;
}

/** An open subscription: iterate its notifications; `close()` ends it (also on `break`). */
export interface Subscription<R> extends AsyncIterable<R> {
  /** The server's subscription id. */
  readonly id: number;
  close(): Promise<void>;
}

export interface ClientOptions {
  /** Every call's deadline unless the call gives its own. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Headers of every HTTP request, and of the WebSocket upgrade (e.g. `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The server's wire error policy, by name, which says where `RpcCallError.causeCode` is read:
   * `'json-rpc'` for a service that sends plain JSON-RPC 2.0 codes (one with none of the Solana
   * plugins), where a -32603 is a -32603 whatever its `data` holds; `'solana'` (the default)
   * for one that sends Solana's, where a -32603's `data.code` is the cause.
   */
  readonly wireErrors?: WireErrorsName;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A typed JSON-RPC client: `createClient<Api>('http://host/rpc')` calls over HTTP,
 * `createClient<Api>('ws://host/rpc/')` over one WebSocket (opened on first use). `Api` is
 * the server's method and subscription definitions by name (`ApiOf<typeof plugins>`), so
 * params, results and notifications are typed from them.
 * A JSON-RPC error rejects with RpcCallError (code, data, and the router's `causeCode`); no
 * answer (deadline, abort, connection) with RpcNoAnswerError.
 */
export function createClient<M extends ApiMap, S extends SubscriptionMap = Record<never, never>>(
  url: string,
  options: ClientOptions = {},
): Client<M, S> {
  const link: Link = /^wss?:/i.test(url)
    ? new WebSocketLink(url, options.headers, options.wireErrors ?? 'solana')
    : new HttpLink(url, options.headers, options.wireErrors ?? 'solana');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const withDeadline = (o: CallOptions | undefined) => ({ ...o, timeoutMs: o?.timeoutMs ?? timeoutMs });
  const builder = new Proxy({} as BatchBuilder<M>, {
    get: (_t, method) =>
      typeof method === 'string' ? (params?: unknown): BatchCall<unknown> => ({ method, params }) : undefined,
  });
  const operations = {
    $batch: (calls: (call: BatchBuilder<M>) => readonly LinkCall[], o?: CallOptions) =>
      link.batch(calls(builder), withDeadline(o)),
    $subscribe: (subscribe: string, params?: unknown, o?: SubscribeOptions) =>
      openSubscription(link, subscribe, params, withDeadline(o), o?.unsubscribe),
    $close: () => link.close(),
  };
  return new Proxy(operations as unknown as Client<M, S>, {
    get: (target, method) => {
      if (typeof method !== 'string' || method === 'then') return undefined;
      if (method in target) return (target as Record<string, unknown>)[method];
      return (params?: unknown, o?: CallOptions) => link.call({ method, params }, withDeadline(o));
    },
  });
}

async function openSubscription(
  link: Link,
  subscribe: string,
  params: unknown,
  options: Required<Pick<CallOptions, 'timeoutMs'>> & CallOptions,
  unsubscribe = subscribe.replace(/Subscribe$/, 'Unsubscribe'),
): Promise<Subscription<unknown>> {
  const queue: unknown[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  /** Why the connection ended it: thrown by the loop once what came before is read. */
  let lost: Error | undefined;
  const id = await link.subscribe({ method: subscribe, params }, options, {
    notify: (result) => {
      queue.push(result);
      wake?.();
    },
    lost: (error) => {
      ended = true;
      lost = error && new RpcNoAnswerError(subscribe, 'closed', `subscription ended: ${error.message}`);
      wake?.();
    },
  });
  const close = async (): Promise<void> => {
    if (ended) return;
    ended = true;
    link.forget(id);
    wake?.();
    await link
      .call({ method: unsubscribe, params: [id] }, { timeoutMs: options.timeoutMs })
      .catch(() => undefined);
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  return {
    id,
    close,
    async *[Symbol.asyncIterator]() {
      try {
        while (true) {
          if (queue.length > 0) {
            yield queue.shift();
            continue;
          }
          if (lost !== undefined) throw lost;
          if (ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        await close();
      }
    },
  };
}

export { RpcNoAnswerError };
