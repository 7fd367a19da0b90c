import type { PluginContext } from '@rollup-router/core';
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
/** "Still unreachable" is repeated after 10 s, then twice as long each time, at most every 10 min. */
const FIRST_REMINDER_MS = 10_000;
const LAST_REMINDER_MS = 600_000;

/**
 * The state of the link to Redis, for logs, /metrics and /ready: ioredis reconnects by
 * itself; this tells people about it. An outage is logged once when it starts, then
 * reminded with backoff (not once per failed reconnect), and its end is logged with its
 * length. Owns no timer: everything happens on the client's events.
 */
export class RedisLink {
  /** Outages since start (the first failed connection counts as one). */
  outages = 0;
  private downSince: number | undefined;
  private lastError: Error | undefined;
  private reminderMs = FIRST_REMINDER_MS;
  private nextReminder = 0;
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
    if (this.downSince === undefined) return 'connecting';
    const since = new Date(this.downSince).toISOString();
    return `unreachable since ${since}: nothing shared; rate limits per instance, statuses from local layers and upstreams; the cause is in the log`;
  }

  /** Why the link is down, for the operator (check-config, the log); undefined while up. */
  get cause(): string | undefined {
    if (this.up) return undefined;
    return this.lastError?.message ?? (this.downSince === undefined ? undefined : 'connection closed');
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
    if (this.downSince !== undefined) {
      const downForS = Math.round((Date.now() - this.downSince) / 1000);
      this.log.info({ downForS }, 'redis reachable again: sharing resumes');
    }
    this.downSince = undefined;
    this.lastError = undefined;
    this.reminderMs = FIRST_REMINDER_MS;
    this.emit(true);
  }

  private becameDown(err: Error | undefined): void {
    const now = Date.now();
    if (this.downSince === undefined) {
      if (this.client.status === 'ready' || this.client.status === 'end') return;
      this.downSince = now;
      this.outages += 1;
      this.nextReminder = now + this.reminderMs;
      this.log.warn(
        { cause: err?.message ?? 'connection closed' },
        'redis unreachable: nothing shared until it is back (rate limits per instance, statuses from local layers and upstreams)',
      );
      this.emit(false);
    } else if (now >= this.nextReminder) {
      this.reminderMs = Math.min(this.reminderMs * 2, LAST_REMINDER_MS);
      this.nextReminder = now + this.reminderMs;
      this.log.warn(
        { cause: err?.message ?? 'connection closed', downForS: Math.round((now - this.downSince) / 1000) },
        'redis still unreachable',
      );
    }
  }

  private emit(up: boolean): void {
    for (const listener of this.listeners) listener(up);
  }
}
