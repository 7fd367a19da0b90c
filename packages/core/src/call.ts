import type { Logger } from 'pino';
import type { CallContext, CallOrigin } from './call-context.js';
import type { SubscriptionHost } from './subscriptions/session.js';

/** What a transport offers every call of one HTTP request. */
export interface CallScope {
  readonly requestId: string;
  readonly origin: CallOrigin;
  readonly log: Logger;
  /** Aborts when the client goes away before its answer was sent; one per request, shared by its calls. */
  readonly clientGone: AbortSignal;
  /** The connection's subscriptions, on transports that keep a connection (WebSocket). */
  readonly session?: SubscriptionHost;
}

export class Call implements CallContext {
  private childLog: Logger | undefined;
  private deadlineController: AbortController | undefined;
  private combined: AbortSignal | undefined;
  private expired = false;

  constructor(
    private readonly scope: CallScope,
    readonly method: string,
    readonly deadline: number,
  ) {}

  get requestId(): string {
    return this.scope.requestId;
  }

  get origin(): CallOrigin {
    return this.scope.origin;
  }

  /** The connection's subscriptions; undefined over HTTP. */
  get session(): SubscriptionHost | undefined {
    return this.scope.session;
  }

  get log(): Logger {
    return (this.childLog ??= this.scope.log.child({ reqId: this.scope.requestId, method: this.method }));
  }

  get signal(): AbortSignal {
    if (!this.combined) {
      const deadline = (this.deadlineController = new AbortController());
      if (this.expired) deadline.abort(new Error('deadline exceeded'));
      // AbortSignal.any follows its sources without adding listeners to the response,
      // so a batch of calls shares the request's one.
      this.combined = AbortSignal.any([this.scope.clientGone, deadline.signal]);
    }
    return this.combined;
  }

  /** The deadline passed: whoever listens on the signal stops working for nobody. */
  expire(): void {
    this.expired = true;
    this.deadlineController?.abort(new Error('deadline exceeded'));
  }
}
