import type { Logger } from 'pino';

/** Where a call came from, as far as the transport knows. */
export interface CallOrigin {
  readonly remoteAddress: string | undefined;
  /** Request headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * What a handler gets beside its params. The signal and the child logger are made on
 * first use: most calls never touch them, and making them costs more than the call.
 */
export interface CallContext<C = unknown> {
  /** From the `x-request-id` header when sent, else generated; echoed as a response header. */
  readonly requestId: string;
  readonly method: string;
  /** A pino child logger bound to the request id and method. */
  readonly log: Logger;
  /** Fires when the client disconnects or the call's deadline passes. */
  readonly signal: AbortSignal;
  /** Epoch milliseconds after which the call is answered with -32052 whatever the handler does. */
  readonly deadline: number;
  readonly origin: CallOrigin;
  /**
   * What the host made of the request (its auth middleware's user, an API key's tenant):
   * the value of the `context` function given to createRpc or the adapter, made once per
   * HTTP request (every call of a batch shares it) and once per WebSocket connection.
   * `undefined` when no such function was given.
   */
  readonly host: C;
  /**
   * Names the upstream that answered this call, by a label from a bounded set (`base-chain`,
   * an ER's label; never a URL): it goes in the call's log line (`upstream`), the metrics
   * of answered calls, and, for a single HTTP call, the `x-rollup-router-upstream` response
   * header. A call whose answer is made from several upstreams names each. Core's
   * forwarded methods name theirs (forwarding.ts); a handler of one's own calls it.
   * A label is visible ASCII without commas or spaces, at most 128 characters.
   */
  answeredBy(upstream: string): void;
}
