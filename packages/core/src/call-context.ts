import type { Logger } from 'pino';
import type { CallContext, CallOrigin } from './context.js';

/** What a transport offers every call of one HTTP request. */
export interface CallScope {
  readonly requestId: string;
  readonly origin: CallOrigin;
  readonly log: Logger;
  /** Registers a listener for the client going away before its answer was sent. */
  onClientGone(listener: () => void): void;
}

export class Call implements CallContext {
  private childLog: Logger | undefined;
  private controller: AbortController | undefined;
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

  get log(): Logger {
    return (this.childLog ??= this.scope.log.child({ reqId: this.scope.requestId, method: this.method }));
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      if (this.expired) controller.abort(new Error('deadline exceeded'));
      else this.scope.onClientGone(() => controller.abort(new Error('client disconnected')));
    }
    return this.controller.signal;
  }

  /** The deadline passed: whoever listens on the signal stops working for nobody. */
  expire(): void {
    this.expired = true;
    this.controller?.abort(new Error('deadline exceeded'));
  }
}
