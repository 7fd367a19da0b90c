import { withoutCredentials } from '@rollup-router/core/internal';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { ConfirmationStatus } from '../status.js';
import type { SignatureNotification } from '../signature-watch.js';

/** What an upstream socket tells its relay. */
export interface UpstreamSocketEvents {
  /** The upstream acknowledged the subscription of `key`: from now on it notifies it. */
  acked(key: string): void;
  /** The upstream notified `key` (and ended that subscription itself, as Solana does). */
  notified(key: string, result: SignatureNotification): void;
}

export interface UpstreamSocketOptions {
  readonly pingIntervalMs: number;
  readonly reconnectMaxDelayMs: number;
  /** Time the upgrade may take. */
  readonly handshakeTimeoutMs: number;
  /** context.apiVersion when the upstream's notification carries none. */
  readonly apiVersion: string;
}

/** Where one relayed subscription stands on this socket. */
type State = 'waiting' | 'subscribing' | 'live' | 'refused';

interface Entry {
  readonly key: string;
  readonly signature: string;
  readonly commitment: ConfirmationStatus;
  state: State;
  /** The upstream's subscription id, once live. */
  upstreamId?: number;
  /** The subscribe request's id while subscribing. */
  requestId?: number;
}

const FIRST_RETRY_MS = 100;

/**
 * One websocket to one configured upstream, shared by every signatureSubscribe relayed to
 * it: each (signature, commitment) is one upstream subscription, whatever the number of
 * clients waiting on it. Reconnects with backoff and subscribes everything again; a socket
 * that answers no ping is replaced. Its credentials are sent as a header, never logged.
 */
export class UpstreamSocket {
  private socket: WebSocket | undefined;
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
  /** Answers to subscribes whose last client left meanwhile: unsubscribed once they come. */
  private readonly abandoned = new Set<number>();
  private readonly url: string;
  private readonly headers: Record<string, string>;
  /** Whether the last failure was logged: one warning per outage, not one per retry. */
  private warned = false;
  private refusalLogged = false;
  /** Connections attempted so far (one at a time: this is never more than one socket). */
  connections = 0;

  constructor(
    /** The configured upstream's name (never its URL: it may hold a key). */
    readonly name: string,
    wsUrl: string,
    private readonly events: UpstreamSocketEvents,
    private readonly options: UpstreamSocketOptions,
    private readonly log: () => Logger | undefined,
  ) {
    const { url, authorization } = withoutCredentials(wsUrl);
    this.url = url;
    this.headers = authorization === undefined ? {} : { authorization };
  }

  /** Subscriptions this socket holds (waiting, subscribing or live). */
  get size(): number {
    return this.entries.size;
  }

  /** Whether `key` is subscribed upstream and acknowledged: the upstream will notify it. */
  covers(key: string): boolean {
    return this.entries.get(key)?.state === 'live';
  }

  /** Whether the socket is open (a new subscription will be acknowledged soon). */
  get isOpen(): boolean {
    return this.open;
  }

  start(): void {
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
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

  subscribe(key: string, signature: string, commitment: ConfirmationStatus): void {
    if (this.entries.has(key)) return;
    const entry: Entry = { key, signature, commitment, state: 'waiting' };
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
      this.request('signatureUnsubscribe', [entry.upstreamId]);
    } else if (entry.state === 'subscribing') {
      if (entry.requestId !== undefined) this.abandoned.add(entry.requestId);
    }
  }

  private send(entry: Entry): void {
    entry.state = 'subscribing';
    const id = this.request('signatureSubscribe', [entry.signature, { commitment: entry.commitment }]);
    entry.requestId = id;
    this.requests.set(id, entry);
  }

  private request(method: string, params: unknown): number {
    const id = this.nextRequestId++;
    this.socket?.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return id;
  }

  private connect(): void {
    if (!this.running) return;
    this.connections += 1;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url, {
        headers: this.headers,
        handshakeTimeout: this.options.handshakeTimeoutMs,
        perMessageDeflate: false,
      });
    } catch {
      // ws's message would quote the URL, path and all (where keys live): never retried, never quoted.
      this.log()?.error(
        { upstream: this.name },
        'upstream websocket URL refused; its subscriptions are polled',
      );
      return;
    }
    this.socket = socket;
    socket.on('open', () => {
      if (this.socket !== socket) return;
      this.open = true;
      this.attempts = 0;
      if (this.warned) this.log()?.info({ upstream: this.name }, 'upstream websocket is back');
      this.warned = false;
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
      if (this.warned || !this.running) return;
      this.warned = true;
      // ws's messages name no URL; ours is the name, never the address (it may hold a key).
      this.log()?.warn(
        { upstream: this.name, err: err.message },
        'upstream websocket failed; its subscriptions are polled until it is back',
      );
    });
    socket.on('close', () => {
      if (this.socket === socket) this.closed();
    });
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
    for (const entry of this.entries.values()) {
      entry.state = 'waiting';
      entry.upstreamId = undefined;
      entry.requestId = undefined;
    }
    if (!this.running) return;
    const delay = Math.min(this.options.reconnectMaxDelayMs, FIRST_RETRY_MS * 2 ** this.attempts);
    this.attempts += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay * (0.5 + Math.random() / 2));
    this.retryTimer.unref();
  }

  private received(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message === null || typeof message !== 'object') return;
    const m = message as {
      id?: unknown;
      result?: unknown;
      error?: unknown;
      method?: unknown;
      params?: unknown;
    };
    if (typeof m.id === 'number') this.answered(m.id, m.result, m.error);
    else if (m.method === 'signatureNotification') this.notification(m.params);
  }

  private answered(id: number, result: unknown, error: unknown): void {
    const entry = this.requests.get(id);
    if (entry === undefined) return;
    this.requests.delete(id);
    entry.requestId = undefined;
    const upstreamId = typeof result === 'number' && error === undefined ? result : undefined;
    if (this.abandoned.delete(id)) {
      if (upstreamId !== undefined) this.request('signatureUnsubscribe', [upstreamId]);
      return;
    }
    if (upstreamId === undefined) {
      entry.state = 'refused';
      // Once per connection: an upstream over its limit refuses every one.
      if (!this.refusalLogged)
        this.log()?.warn(
          { upstream: this.name, error },
          'upstream refused a signatureSubscribe; such signatures are polled',
        );
      this.refusalLogged = true;
      return;
    }
    entry.state = 'live';
    entry.upstreamId = upstreamId;
    this.byUpstreamId.set(upstreamId, entry);
    this.events.acked(entry.key);
  }

  private notification(params: unknown): void {
    const p = params as { subscription?: unknown; result?: unknown } | null;
    const entry = typeof p?.subscription === 'number' ? this.byUpstreamId.get(p.subscription) : undefined;
    if (entry === undefined) return;
    const result = this.notificationResult(p!.result);
    if (result === undefined) {
      this.log()?.warn(
        { upstream: this.name },
        'upstream sent a signatureNotification of another shape; ignored',
      );
      return;
    }
    // Solana ends a signature subscription with its notification.
    this.byUpstreamId.delete(p!.subscription as number);
    this.entries.delete(entry.key);
    this.events.notified(entry.key, result);
  }

  /** Solana's shape, in its member order; undefined for anything else (e.g. receivedSignature). */
  private notificationResult(result: unknown): SignatureNotification | undefined {
    const r = result as { context?: { apiVersion?: unknown; slot?: unknown }; value?: unknown } | null;
    const slot = r?.context?.slot;
    const value = r?.value as { err?: unknown } | null | undefined;
    if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) return undefined;
    if (value === null || typeof value !== 'object' || !('err' in value)) return undefined;
    const err = value.err;
    if (err !== null && typeof err !== 'object' && typeof err !== 'string') return undefined;
    const apiVersion =
      typeof r!.context!.apiVersion === 'string' ? r!.context!.apiVersion : this.options.apiVersion;
    return { context: { apiVersion, slot }, value: { err: err as SignatureNotification['value']['err'] } };
  }
}
