/** How long a call may take, and the caller's own end. */
export interface CallOptions {
  /** The call's deadline, in milliseconds from now. Default: the client's `timeoutMs`. */
  readonly timeoutMs?: number;
  /** Aborting it rejects the call at once with RpcNoAnswerError `aborted`. */
  readonly signal?: AbortSignal;
}

/** One call for a link to send. */
export interface LinkCall {
  readonly method: string;
  readonly params: unknown;
}

/** One call's outcome in a batch: its result, or the error the server answered it with. */
export type Settled<R> =
  | { readonly ok: true; readonly result: R }
  | { readonly ok: false; readonly error: import('./errors.js').RpcCallError };

/** Where a subscription's notifications go, and how it hears that its connection is gone. */
export interface SubscriptionListener {
  notify(result: unknown): void;
  /** The connection closed: nothing more will come (`error` unless the client itself closed it). */
  lost(error: Error | undefined): void;
}

/** What carries calls to the server: HTTP (undici) or WebSocket (ws). */
export interface Link {
  call(call: LinkCall, options: Required<Pick<CallOptions, 'timeoutMs'>> & CallOptions): Promise<unknown>;
  batch(
    calls: readonly LinkCall[],
    options: Required<Pick<CallOptions, 'timeoutMs'>> & CallOptions,
  ): Promise<Settled<unknown>[]>;
  /** Opens a subscription: its id, and where its notifications go. WebSocket only. */
  subscribe(
    call: LinkCall,
    options: Required<Pick<CallOptions, 'timeoutMs'>> & CallOptions,
    listener: SubscriptionListener,
  ): Promise<number>;
  /** Stops routing a subscription's notifications (its unsubscribe call is the client's). */
  forget(subscription: number): void;
  close(): Promise<void>;
}
