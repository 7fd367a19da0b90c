import type { Logger } from 'pino';
import type WebSocket from 'ws';
import type { AddressGuard } from './address-guard.js';
import { loadOptionalPackage } from './optional-package.js';
import { OutageLog } from './outage-log.js';
import { readUpstreamFrame, type UpstreamResult } from './upstream-frame.js';
import { withoutCredentials } from './url-credentials.js';

export { UpstreamResult } from './upstream-frame.js';

/** How long an ended socket's close handshake may take before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

/** One subscription relayed to an upstream, in Solana's pubsub terms. */
export interface UpstreamSubscription {
  /** The subscribe method, e.g. `accountSubscribe`. */
  readonly subscribe: string;
  /** The unsubscribe method, e.g. `accountUnsubscribe`. */
  readonly unsubscribe: string;
  /** The notification method it is notified with, e.g. `accountNotification`. */
  readonly notification: string;
  /** The subscribe call's params, sent as given. */
  readonly params: unknown;
  /** Solana ends it with its first notification (signatureSubscribe): nothing to unsubscribe then. */
  readonly oneShot?: boolean;
}

/** What an upstream socket tells its relay. */
export interface UpstreamSocketEvents {
  /** The upstream acknowledged the subscription of `key`: from now on it notifies it. */
  acked(key: string): void;
  /**
   * The upstream answered the subscribe of `key` with this error (its own, as sent): at
   * first, or when subscribing it again after a reconnect. Without this event the key
   * stays held, refused, and is asked again after the next reconnect.
   */
  refused?(key: string, error: unknown): void;
  /**
   * The upstream notified `key` with this `result` (the notification's params.result, its
   * text as sent). Returns whether it was taken: a one-shot subscription ends with the
   * first one taken, so a notification of another shape (which the relay logs) leaves it waiting.
   */
  notified(key: string, result: UpstreamResult): boolean;
  /**
   * The socket closed, whatever its close code: what the upstream notified of these
   * acknowledged keys until they are acknowledged again is lost. They are subscribed again
   * once it reconnects; a consumer that cannot live with a gap unsubscribes them.
   */
  lost?(keys: readonly string[]): void;
  /**
   * The socket could not connect, or closed: every key it holds (acknowledged or not) waits
   * for it to reconnect, which it tries with backoff. Told at each such close, so that a
   * consumer waiting for an acknowledgement knows none is coming soon.
   */
  disconnected?(keys: readonly string[]): void;
}

/** An upstream's websocket URL, or where it is now (a provider set's current provider's). */
export type WsUrl = string | (() => string);

export interface UpstreamSocketOptions {
  readonly pingIntervalMs: number;
  readonly reconnectMaxDelayMs: number;
  /** Time the upgrade may take. */
  readonly handshakeTimeoutMs: number;
  /** What the logs say becomes of a subscription the upstream does not serve (e.g. "such signatures are polled"). */
  readonly fallback?: string;
  /** Connects only where this guard allows (a URL someone other than the operator chose). */
  readonly addressGuard?: AddressGuard;
}

/** Where one relayed subscription stands on this socket. */
type State = 'waiting' | 'subscribing' | 'live' | 'refused';

interface Entry {
  readonly key: string;
  readonly subscription: UpstreamSubscription;
  state: State;
  /** The upstream's subscription id, once live. */
  upstreamId?: number;
  /** The subscribe request's id while subscribing. */
  requestId?: number;
}

const FIRST_RETRY_MS = 100;

/**
 * One websocket to one upstream (a Solana node's pubsub endpoint), shared by every
 * subscription relayed to it: each key is one upstream subscription, whatever the number
 * of clients behind it. Reconnects with backoff and subscribes everything again; a socket
 * that answers no ping is replaced. Its credentials are sent as a header, never logged.
 */
export class UpstreamSocket {
  private socket: WebSocket | undefined;
  private readonly WebSocket: typeof WebSocket;
  private open = false;
  private running = false;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  /** Whether something came since the last ping. */
  private heard = true;
  private nextRequestId = 1;
  private readonly entries = new Map<string, Entry>();
  /** Subscribe requests waiting for their answer, by request id. */
  private readonly requests = new Map<number, Entry>();
  private readonly byUpstreamId = new Map<number, Entry>();
  /** Answers to subscribes whose last client left meanwhile: unsubscribed (with this method) once they come. */
  private readonly abandoned = new Map<number, string>();
  /** Set while `end()` waits for the answers of abandoned subscribes. */
  private ending: (() => void) | undefined;
  /** Where the next connection goes: asked at each connect, so a socket follows a provider set's choice. */
  private readonly wsUrl: WsUrl;
  /** Failed connections in a row: logged with backoff, not once per retry. */
  private readonly outage = new OutageLog();
  private refusalLogged = false;
  /** Connections attempted so far (one at a time: this is never more than one socket). */
  connections = 0;

  constructor(
    /** The upstream's name (never its URL: it may hold a key). */
    readonly name: string,
    wsUrl: WsUrl,
    private readonly events: UpstreamSocketEvents,
    private readonly options: UpstreamSocketOptions,
    private readonly log: () => Logger | undefined,
  ) {
    this.WebSocket = loadOptionalPackage<typeof WebSocket>(
      import.meta.url,
      'ws',
      `relaying subscriptions to the upstream websocket of ${name}`,
    );
    this.wsUrl = wsUrl;
  }

  /** Subscriptions this socket holds (waiting, subscribing or live). */
  get size(): number {
    return this.entries.size;
  }

  /** Whether `key` is subscribed upstream and acknowledged: the upstream will notify it. */
  covers(key: string): boolean {
    return this.entries.get(key)?.state === 'live';
  }

  /** Whether `key` is held on this socket, in whatever state. */
  holds(key: string): boolean {
    return this.entries.has(key);
  }

  /** Whether the socket is open (a new subscription will be acknowledged soon). */
  get isOpen(): boolean {
    return this.open;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    this.ending = undefined;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    this.socket?.terminate();
    this.socket = undefined;
    this.open = false;
    this.entries.clear();
    this.requests.clear();
    this.byUpstreamId.clear();
    this.abandoned.clear();
  }

  /**
   * Stops once what it owes the upstream is sent: the unsubscribes of subscriptions whose
   * subscribe is still unanswered (their answers carry the ids), then a close handshake, the
   * socket destroyed CLOSE_GRACE_MS later if the upstream does not answer it. `stop()`
   * destroys it at once, dropping them: a pool's extra socket left with nothing ends this way.
   */
  end(): void {
    const socket = this.socket;
    if (socket === undefined || !this.open) return this.stop();
    this.running = false;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const finish = (): void => {
      if (this.ending !== finish) return;
      this.ending = undefined;
      this.socket = undefined;
      this.stop();
      socket.close(1000, 'no subscriptions left');
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    };
    this.ending = finish;
    if (this.abandoned.size === 0) return finish();
    setTimeout(finish, CLOSE_GRACE_MS).unref();
  }

  /** Subscribes `key` upstream (now if open, else once connected); a key already held is left as it is. */
  subscribe(key: string, subscription: UpstreamSubscription): void {
    if (this.entries.has(key)) return;
    const entry: Entry = { key, subscription, state: 'waiting' };
    this.entries.set(key, entry);
    if (this.open) this.send(entry);
  }

  /** The last client of `key` left: end its upstream subscription. */
  unsubscribe(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    if (entry.upstreamId !== undefined) {
      this.byUpstreamId.delete(entry.upstreamId);
      this.request(entry.subscription.unsubscribe, [entry.upstreamId]);
    } else if (entry.state === 'subscribing') {
      if (entry.requestId !== undefined) this.abandoned.set(entry.requestId, entry.subscription.unsubscribe);
    }
  }

  private send(entry: Entry): void {
    entry.state = 'subscribing';
    const id = this.request(entry.subscription.subscribe, entry.subscription.params);
    entry.requestId = id;
    this.requests.set(id, entry);
  }

  private request(method: string, params: unknown): number {
    const id = this.nextRequestId++;
    const call =
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    this.socket?.send(JSON.stringify(call));
    return id;
  }

  private currentUrl(): string {
    return typeof this.wsUrl === 'string' ? this.wsUrl : this.wsUrl();
  }

  /** Whether the address guard refuses `url` (logged once per outage). An IP address is never looked up: checked here, since it cannot change. */
  private refused(url: string): boolean {
    const refusal = this.options.addressGuard?.refusalOf(new URL(url).hostname);
    if (refusal !== undefined) {
      this.log()?.error(
        { upstream: this.name, err: refusal.message },
        `upstream websocket refused${this.fallbackSaid()}`,
      );
      return true;
    }
    return false;
  }

  private connect(): void {
    if (!this.running) return;
    this.connections += 1;
    const { addressGuard } = this.options;
    let socket: WebSocket;
    try {
      const { url, authorization } = withoutCredentials(this.currentUrl());
      if (this.refused(url)) return;
      socket = new this.WebSocket(url, {
        headers: authorization === undefined ? {} : { authorization },
        handshakeTimeout: this.options.handshakeTimeoutMs,
        perMessageDeflate: false,
        ...(addressGuard === undefined ? {} : { lookup: addressGuard.lookup }),
      });
    } catch {
      // ws's message would quote the URL, path and all (where keys live): never retried, never quoted.
      this.log()?.error({ upstream: this.name }, `upstream websocket URL refused${this.fallbackSaid()}`);
      return;
    }
    this.socket = socket;
    socket.on('open', () => {
      if (this.socket !== socket) return;
      this.open = true;
      this.attempts = 0;
      if (this.outage.ended() !== undefined)
        this.log()?.info({ upstream: this.name }, 'upstream websocket is back');
      this.refusalLogged = false;
      this.heard = true;
      this.pingTimer = setInterval(() => this.ping(socket), this.options.pingIntervalMs);
      this.pingTimer.unref();
      for (const entry of this.entries.values()) this.send(entry);
    });
    socket.on('message', (data: Buffer, isBinary) => {
      this.heard = true;
      if (!isBinary) this.received(data.toString());
    });
    socket.on('pong', () => {
      this.heard = true;
    });
    socket.on('error', (err) => {
      if (!this.running || !this.outage.failed()) return;
      // ws's messages name no URL; ours is the name, never the address (it may hold a key).
      this.log()?.warn(
        { upstream: this.name, err: err.message, failures: this.outage.failuresInARow },
        `upstream websocket failed${this.fallbackSaid(' until it is back')}`,
      );
    });
    socket.on('close', () => {
      if (this.socket === socket) this.closed();
    });
  }

  private fallbackSaid(suffix = ''): string {
    return this.options.fallback === undefined ? '' : `; ${this.options.fallback}${suffix}`;
  }

  /** A socket that answered nothing since the last ping is gone, whatever TCP says. */
  private ping(socket: WebSocket): void {
    if (!this.heard) {
      this.log()?.warn({ upstream: this.name }, 'upstream websocket answers no ping; replaced');
      socket.terminate();
      return;
    }
    this.heard = false;
    socket.ping();
  }

  private closed(): void {
    this.open = false;
    this.socket = undefined;
    clearInterval(this.pingTimer);
    this.requests.clear();
    this.byUpstreamId.clear();
    this.abandoned.clear();
    const lost: string[] = [];
    for (const entry of this.entries.values()) {
      if (entry.state === 'live') lost.push(entry.key);
      entry.state = 'waiting';
      entry.upstreamId = undefined;
      entry.requestId = undefined;
    }
    if (lost.length > 0 && this.running) this.events.lost?.(lost);
    if (this.running) this.events.disconnected?.([...this.entries.keys()]);
    if (!this.running) return;
    const delay = Math.min(this.options.reconnectMaxDelayMs, FIRST_RETRY_MS * 2 ** this.attempts);
    this.attempts += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay * (0.5 + Math.random() / 2));
    this.retryTimer.unref();
  }

  private received(text: string): void {
    const frame = readUpstreamFrame(text);
    if (frame?.kind === 'answer') this.answered(frame.id, frame.result, frame.error);
    else if (frame?.kind === 'notification')
      this.notification(frame.method, frame.subscription, frame.result);
  }

  private answered(id: number, result: unknown, error: unknown): void {
    const entry = this.requests.get(id);
    if (entry === undefined) return;
    this.requests.delete(id);
    entry.requestId = undefined;
    const upstreamId = typeof result === 'number' && error === undefined ? result : undefined;
    const abandonedWith = this.abandoned.get(id);
    if (abandonedWith !== undefined) {
      this.abandoned.delete(id);
      if (upstreamId !== undefined) this.request(abandonedWith, [upstreamId]);
      if (this.abandoned.size === 0) this.ending?.();
      return;
    }
    if (upstreamId === undefined) {
      entry.state = 'refused';
      // Once per connection: an upstream over its limit refuses every one.
      if (!this.refusalLogged)
        this.log()?.warn(
          { upstream: this.name, error },
          `upstream refused a ${entry.subscription.subscribe}${this.fallbackSaid()}`,
        );
      this.refusalLogged = true;
      this.events.refused?.(entry.key, error);
      return;
    }
    entry.state = 'live';
    entry.upstreamId = upstreamId;
    this.byUpstreamId.set(upstreamId, entry);
    this.events.acked(entry.key);
  }

  private notification(method: string, id: unknown, result: UpstreamResult | undefined): void {
    const entry = typeof id === 'number' ? this.byUpstreamId.get(id) : undefined;
    if (entry === undefined || result === undefined || entry.subscription.notification !== method) return;
    if (!entry.subscription.oneShot) {
      this.events.notified(entry.key, result);
      return;
    }
    // Solana ended it with this notification: gone before the relay hears of it, so that
    // its clients leaving now send no unsubscribe for it.
    this.byUpstreamId.delete(id as number);
    this.entries.delete(entry.key);
    if (this.events.notified(entry.key, result)) return;
    // Not its shape (the relay logged it): the upstream still holds it, and so do we.
    if (this.entries.has(entry.key)) return;
    this.entries.set(entry.key, entry);
    this.byUpstreamId.set(id as number, entry);
  }
}
