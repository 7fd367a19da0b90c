import type { Logger } from 'pino';
import {
  UpstreamSocket,
  type UpstreamSocketEvents,
  type UpstreamSocketOptions,
  type UpstreamSubscription,
  type WsUrl,
} from './upstream-socket.js';

/** Subscriptions one upstream websocket carries by default: providers cap them per connection, often at 100. */
export const DEFAULT_SUBSCRIPTIONS_PER_SOCKET = 100;

export interface UpstreamPoolOptions extends UpstreamSocketOptions {
  /** Most subscriptions on one socket; past it another socket is opened. */
  readonly subscriptionsPerSocket: number;
}

/**
 * The subscriptions relayed to one upstream, spread over as many sockets as they need with
 * at most `subscriptionsPerSocket` on each (an upstream that caps subscriptions per
 * connection refuses the rest). The first socket is kept open from `start` to `stop`; one
 * opened for more is closed once it holds nothing. Each socket reconnects and subscribes
 * its own again (UpstreamSocket).
 */
export class UpstreamPool {
  private readonly sockets: UpstreamSocket[] = [];
  /** The socket each key is held on. */
  private readonly held = new Map<string, UpstreamSocket>();
  private running = false;

  constructor(
    /** The upstream's name (never its URL: it may hold a key). */
    readonly name: string,
    private readonly wsUrl: WsUrl,
    private readonly events: UpstreamSocketEvents,
    private readonly options: UpstreamPoolOptions,
    private readonly log: () => Logger | undefined,
  ) {
    this.sockets.push(this.newSocket());
  }

  /** Subscriptions held (waiting, subscribing or live), on all sockets. */
  get size(): number {
    return this.held.size;
  }

  /** Sockets of this upstream now. */
  get socketCount(): number {
    return this.sockets.length;
  }

  /** Connections attempted so far, by every socket. */
  get connections(): number {
    return this.sockets.reduce((n, s) => n + s.connections, 0);
  }

  /** Whether `key` is subscribed upstream and acknowledged. */
  covers(key: string): boolean {
    return this.held.get(key)?.covers(key) ?? false;
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Whether a new subscription goes to an open socket (it will be acknowledged soon). */
  get isOpen(): boolean {
    const next = this.sockets.find((s) => s.size < this.options.subscriptionsPerSocket);
    return next?.isOpen ?? false;
  }

  start(): void {
    this.running = true;
    for (const s of this.sockets) s.start();
  }

  stop(): void {
    this.running = false;
    for (const s of this.sockets) s.stop();
    this.sockets.splice(1);
    this.held.clear();
  }

  /** Subscribes `key` on a socket with room (a new one when none has); a key already held is left as it is. */
  subscribe(key: string, subscription: UpstreamSubscription): void {
    if (this.held.has(key)) return;
    let socket = this.sockets.find((s) => s.size < this.options.subscriptionsPerSocket);
    if (socket === undefined) {
      socket = this.newSocket();
      this.sockets.push(socket);
      if (this.running) socket.start();
    }
    this.held.set(key, socket);
    socket.subscribe(key, subscription);
  }

  /** Ends `key` upstream; a socket other than the first left with nothing is closed. */
  unsubscribe(key: string): void {
    const socket = this.held.get(key);
    if (socket === undefined) return;
    this.held.delete(key);
    socket.unsubscribe(key);
    if (socket.size > 0 || socket === this.sockets[0]) return;
    socket.end();
    this.sockets.splice(this.sockets.indexOf(socket), 1);
  }

  private newSocket(): UpstreamSocket {
    const { subscriptionsPerSocket: _, ...options } = this.options;
    return new UpstreamSocket(this.name, this.wsUrl, this.events, options, this.log);
  }
}
