import { OutageLog, type PluginContext } from '@rollup-router/core';
import type { RedisClientLike } from './redis-client-like.js';

type Logger = PluginContext['log'];

/** Redis refused the credentials: a configuration mistake, not an outage. */
export class RedisAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisAuthError';
  }
}

const AUTH_REFUSED = /WRONGPASS|NOAUTH|NOPERM|invalid password|invalid username-password/i;

/**
 * The state of the link to Redis, for logs, /metrics and /ready: ioredis reconnects by
 * itself; this tells people about it. An outage is logged when it starts, reminded with
 * backoff (OutageLog: not once per failed reconnect), and its end is logged with its
 * length. Owns no timer: everything happens on the client's events.
 */
export class RedisLink {
  /** Outages since start (the first failed connection counts as one). */
  outages = 0;
  private readonly outage = new OutageLog();
  private lastError: Error | undefined;
  private readonly listeners: ((up: boolean) => void)[] = [];

  constructor(
    readonly client: RedisClientLike,
    private readonly log: Logger,
  ) {
    client.on('ready', () => this.becameUp());
    client.on('error', (err: Error) => {
      this.lastError = err;
      this.becameDown(err);
    });
    client.on('close', () => this.becameDown(this.lastError));
  }

  get up(): boolean {
    return this.client.status === 'ready';
  }

  /**
   * One line for the public /ready: a state and a time, never the raw error, which names
   * Redis's internal host and port (it is in the log, and in `cause`).
   */
  describe(): string {
    if (this.up) return 'connected';
    const downSince = this.outage.since;
    if (downSince === undefined) return 'connecting';
    const since = new Date(downSince).toISOString();
    return `unreachable since ${since}: nothing shared; rate limits per instance, statuses from local layers and upstreams; the cause is in the log`;
  }

  /** Why the link is down, for the operator (check-config, the log); undefined while up. */
  get cause(): string | undefined {
    if (this.up) return undefined;
    return this.lastError?.message ?? (this.outage.since === undefined ? undefined : 'connection closed');
  }

  /** Called with true when the link comes up, false when it goes down. */
  onChange(listener: (up: boolean) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Connects. Wrong credentials reject with RedisAuthError (and the client is
   * disconnected); any other failure resolves, logged as an outage, while ioredis keeps
   * reconnecting in the background: Redis being down never stops an instance from starting.
   */
  async connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch (err) {
      const cause = this.lastError ?? (err as Error);
      if (AUTH_REFUSED.test(cause.message)) {
        this.client.disconnect();
        throw new RedisAuthError(cause.message);
      }
    }
  }

  /** Closes the connection (QUIT when connected, so pending replies arrive first). */
  async close(): Promise<void> {
    if (this.client.status === 'ready') await this.client.quit().catch(() => this.client.disconnect());
    else this.client.disconnect();
  }

  private becameUp(): void {
    const downMs = this.outage.ended();
    if (downMs !== undefined)
      this.log.info({ downForS: Math.round(downMs / 1000) }, 'redis reachable again: sharing resumes');
    this.lastError = undefined;
    this.emit(true);
  }

  private becameDown(err: Error | undefined): void {
    const starts = this.outage.since === undefined;
    if (starts && (this.client.status === 'ready' || this.client.status === 'end')) return;
    const cause = err?.message ?? 'connection closed';
    if (!this.outage.failed()) return;
    if (starts) {
      this.outages += 1;
      this.log.warn(
        { cause },
        'redis unreachable: nothing shared until it is back (rate limits per instance, statuses from local layers and upstreams)',
      );
      this.emit(false);
    } else {
      const downForS = Math.round((Date.now() - this.outage.since!) / 1000);
      this.log.warn({ cause, downForS, failures: this.outage.failuresInARow }, 'redis still unreachable');
    }
  }

  private emit(up: boolean): void {
    for (const listener of this.listeners) listener(up);
  }
}
