import type { Logger } from 'pino';
import type { CallContext, CallOrigin } from './call-context.js';
import type { SubscriptionHost } from './subscriptions/session.js';

/**
 * What every call of one JSON-RPC message (a single call or a batch: an HTTP request's body, a
 * WebSocket frame, an `rpc.dispatch` text) shares. Each call's own context, CallContextImpl, reads it.
 */
export interface MessageScope {
  readonly requestId: string;
  readonly origin: CallOrigin;
  readonly log: Logger;
  /**
   * How a call learns that its client went away before its answer was sent; undefined when
   * nobody can (rpc.dispatch without a signal).
   */
  readonly clientGone?: ClientGone;
  /** The connection's subscriptions, on transports that keep a connection (WebSocket). */
  readonly session?: SubscriptionHost;
  /** What the host's `context` function made of the request or connection (CallContext.host). */
  readonly host?: unknown;
  /**
   * Handed a call's list of the upstreams that answered it, when its first is named (HTTP:
   * the response header of a single call). The list grows as the call names more.
   */
  answered?(upstreams: readonly string[]): void;
}

/**
 * A request's own list of followers (HTTP: plain callbacks behind one `close` listener on
 * the response, for every call of a batch), or a signal that outlives its calls (an
 * embedder's, a WebSocket connection's).
 */
export type ClientGone = AbortSignal | GoneFollowers;

export interface GoneFollowers {
  /** Calls `listener` once when the client goes away, at once if it has. */
  follow(listener: (reason: unknown) => void): void;
}

/**
 * A call's end (its deadline passed, its client went away) followed by a plain callback: what
 * the core's own upstream calls follow instead of an AbortSignal, which a forwarded call paid
 * ~20 µs of its CPU for at one connection (AbortController, add and remove its listener; Node
 * 20, --cpu-prof). `signal` is the same end as an AbortSignal, for what needs one.
 */
export interface CallEnding {
  /** Calls `listener` once when the call ends, at once if it has; returns the way to stop following. */
  follow(listener: () => void): () => void;
  readonly signal: AbortSignal;
}

const stayed = (): void => undefined;

/** The CallContext a handler, guard or subscription gets: one per call, over its message's scope. */
export class CallContextImpl implements CallContext, CallEnding {
  private childLog: Logger | undefined;
  private made: AbortSignal | undefined;
  /** Why the call ended (deadline, client gone); undefined while it goes on. */
  private endedBy: unknown = undefined;
  /** Who follows the call's end, its signal included once made; the client's end is followed once for all. */
  private followers: ((reason: unknown) => void)[] | undefined;
  /** The upstreams that answered, in the order named; undefined while none did. */
  upstreams: string[] | undefined;

  constructor(
    private readonly scope: MessageScope,
    readonly method: string,
    readonly deadline: number,
    /** The call has no id: nothing will be answered, so nothing it opens can be named to its client. */
    readonly notification = false,
  ) {}

  get requestId(): string {
    return this.scope.requestId;
  }

  get origin(): CallOrigin {
    return this.scope.origin;
  }

  get host(): unknown {
    return this.scope.host;
  }

  /** The connection's subscriptions; undefined over HTTP. */
  get session(): SubscriptionHost | undefined {
    return this.scope.session;
  }

  get log(): Logger {
    return (this.childLog ??= this.scope.log.child({ reqId: this.scope.requestId, method: this.method }));
  }

  /**
   * One AbortController, made on first use, aborted when the call ends. A request's
   * followers are followed by a plain callback: AbortSignal.any cost 8-26 µs per call on
   * Node 20 (2-3 on 24), an AbortController ~4 on Node 20 (0.3 on 24).
   */
  get signal(): AbortSignal {
    if (this.made) return this.made;
    const controller = new AbortController();
    this.onEnd((reason) => controller.abort(reason));
    const gone = this.scope.clientGone;
    // A signal that outlives its calls: AbortSignal.any follows it through a weak
    // reference, so calls that ended leave no listener on it.
    if (gone !== undefined && !('follow' in gone))
      return (this.made = AbortSignal.any([gone, controller.signal]));
    return (this.made = controller.signal);
  }

  follow(listener: () => void): () => void {
    const gone = this.scope.clientGone;
    // A signal that outlives the call (a connection's) is followed as `signal` follows it:
    // a listener of ours left on it would outlive the call.
    return gone !== undefined && !('follow' in gone)
      ? followSignal(this.signal, listener)
      : this.onEnd(listener);
  }

  answeredBy(upstream: string): void {
    if (!UPSTREAM_LABEL.test(upstream)) {
      throw new TypeError(
        `an upstream label is visible ASCII without commas, at most 128 characters: ${JSON.stringify(upstream)}`,
      );
    }
    const known = this.upstreams;
    if (known === undefined) {
      this.scope.answered?.((this.upstreams = [upstream]));
      return;
    }
    if (!known.includes(upstream)) known.push(upstream);
  }

  /** The deadline passed: whoever follows the call stops working for nobody. */
  expire(): void {
    this.end(deadlineExceeded());
  }

  /** Calls `listener` with the reason once the call ends, at once if it has. */
  private onEnd(listener: (reason: unknown) => void): () => void {
    if (this.endedBy !== undefined) {
      listener(this.endedBy);
      return stayed;
    }
    let followers = this.followers;
    if (followers !== undefined) followers.push(listener);
    else {
      followers = this.followers = [listener];
      // The request's client, followed once for every follower; gone already, it ends the call now.
      const gone = this.scope.clientGone;
      if (gone !== undefined && 'follow' in gone) gone.follow((reason) => this.end(reason));
    }
    return () => {
      const at = followers.indexOf(listener);
      if (at >= 0) followers.splice(at, 1);
    };
  }

  private end(reason: unknown): void {
    if (this.endedBy !== undefined) return;
    this.endedBy = reason;
    for (const listener of this.followers?.splice(0) ?? []) listener(reason);
  }
}

function followSignal(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return stayed;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** A CallEnding for a signal alone (an embedder's own call of the client). */
export const endingOf = (signal: AbortSignal): CallEnding => ({
  follow: (listener) => followSignal(signal, listener),
  signal,
});

// A header value, a log field and a metric label at once: nothing that needs escaping in any.
const UPSTREAM_LABEL = /^[\x21-\x2b\x2d-\x7e]{1,128}$/;

const deadlineExceeded = (): Error => new Error('deadline exceeded');
