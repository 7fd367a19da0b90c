import { OutageLog, type PluginContext } from '@rollup-router/core';
import type { Commitment } from '@rollup-router/solana';
import { DEFAULT_SUBSCRIPTIONS_PER_SOCKET, UpstreamPool } from '@rollup-router/core/upstream-pool';
import type { UpstreamResult, WsUrl } from '@rollup-router/core/upstream-socket';

type Logger = PluginContext['log'];

/** An account as accountSubscribe notifies it (base64), or null. */
export interface NotifiedAccount {
  readonly data: readonly [string, string];
  readonly owner: string;
  readonly lamports: number | bigint;
}

export interface FollowerHooks {
  /** The record of `account` changed (or closed: null) at `slot`. */
  readonly changed: (account: string, pda: string, value: NotifiedAccount | null, slot: bigint) => void;
  /** Following `account` stopped on its own (the websocket went away): its cached record is no longer followed. */
  readonly lost: (account: string) => void;
  readonly log: () => Logger | undefined;
}

/** How long a subscription may take to be confirmed before the record is read unfollowed. */
const SUBSCRIBE_TIMEOUT_MS = 2000;
/**
 * After a subscription failed, records are read unfollowed for this long without trying:
 * a websocket that is down must not add its timeout to every lookup that misses.
 */
const RETRY_AFTER_MS = 5000;
const PING_INTERVAL_MS = 10_000;
const RECONNECT_MAX_DELAY_MS = 5000;

interface Followed {
  readonly account: string;
  readonly pda: string;
  /** The follow() call waiting for the chain's answer. */
  answer?: (confirmed: boolean) => void;
}

/**
 * Follows delegation records with accountSubscribe on the base chain, so that a cached
 * record changes the moment the chain says so (a delegation, an undelegation), not when
 * its cache entry expires. One subscription per cached account, ended when the entry goes.
 * On core's upstream sockets (pooled, credentials as a header, pinged): any close of a
 * socket, a clean one included, loses what its records' notifications would have said,
 * so those records are dropped (`lost`) and read again.
 */
export class RecordFollower {
  private readonly pool: UpstreamPool;
  private readonly followed = new Map<string, Followed>();
  /** The account of each record followed, by record address (the subscription's key). */
  private readonly byPda = new Map<string, Followed>();
  private started = false;
  private stopped = false;
  private failedAt = -Infinity;
  /** Subscriptions not confirmed in a row: warned of with backoff. */
  private readonly outage = new OutageLog();

  constructor(
    wsUrl: WsUrl,
    private readonly commitment: Commitment,
    private readonly hooks: FollowerHooks,
  ) {
    this.pool = new UpstreamPool(
      'base-chain',
      wsUrl,
      {
        acked: (pda) => this.answered(pda, true),
        refused: (pda) => this.answered(pda, false),
        notified: (pda, result) => this.notified(pda, result),
        lost: (pdas) => this.lost(pdas),
      },
      {
        pingIntervalMs: PING_INTERVAL_MS,
        reconnectMaxDelayMs: RECONNECT_MAX_DELAY_MS,
        handshakeTimeoutMs: SUBSCRIBE_TIMEOUT_MS,
        subscriptionsPerSocket: DEFAULT_SUBSCRIPTIONS_PER_SOCKET,
        fallback: 'delegation records are read unfollowed',
      },
      hooks.log,
    );
  }

  /**
   * Subscribes to the record of `account`; true once the chain confirmed it, false when it
   * could not (the caller then trusts its read only for the unfollowed TTL).
   */
  async follow(account: string, pda: string): Promise<boolean> {
    if (this.followed.has(account)) return true;
    if (this.stopped || Date.now() - this.failedAt < RETRY_AFTER_MS) return false;
    if (!this.started) {
      this.started = true;
      this.pool.start();
    }
    const entry: Followed = { account, pda };
    this.followed.set(account, entry);
    this.byPda.set(pda, entry);
    let timer: NodeJS.Timeout | undefined;
    const confirmed = await new Promise<boolean>((resolve) => {
      entry.answer = resolve;
      timer = setTimeout(() => resolve(false), SUBSCRIBE_TIMEOUT_MS);
      this.pool.subscribe(pda, {
        subscribe: 'accountSubscribe',
        unsubscribe: 'accountUnsubscribe',
        notification: 'accountNotification',
        params: [pda, { encoding: 'base64', commitment: this.commitment }],
      });
    });
    clearTimeout(timer);
    entry.answer = undefined;
    if (confirmed && this.outage.ended() !== undefined)
      this.hooks.log()?.info('delegation records followed again (base chain websocket)');
    if (confirmed || this.stopped || this.followed.get(account) !== entry) return confirmed;
    this.unfollow(account);
    if (this.outage.failed()) {
      this.hooks
        .log()
        ?.warn(
          { failures: this.outage.failuresInARow },
          'delegation records not followed (base chain websocket); reads expire instead',
        );
    }
    this.failedAt = Date.now();
    return false;
  }

  /** Ends the subscription of `account` (its cache entry went). */
  unfollow(account: string): void {
    const entry = this.followed.get(account);
    if (entry === undefined) return;
    this.followed.delete(account);
    this.byPda.delete(entry.pda);
    this.pool.unsubscribe(entry.pda);
    entry.answer?.(false);
  }

  /** Whether `account`'s record is followed (or its subscription under way). */
  follows(account: string): boolean {
    return this.followed.has(account);
  }

  /** How many records are followed. */
  get count(): number {
    return this.followed.size;
  }

  stop(): void {
    this.stopped = true;
    this.pool.stop();
    for (const entry of this.followed.values()) entry.answer?.(false);
    this.followed.clear();
    this.byPda.clear();
  }

  private answered(pda: string, confirmed: boolean): void {
    this.byPda.get(pda)?.answer?.(confirmed);
  }

  private notified(pda: string, result: UpstreamResult): boolean {
    const entry = this.byPda.get(pda);
    const notified = result.value as { context?: { slot?: unknown }; value?: unknown } | undefined;
    const slot = notified?.context?.slot;
    if (entry === undefined || typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0)
      return true;
    this.hooks.changed(entry.account, pda, (notified!.value ?? null) as NotifiedAccount | null, BigInt(slot));
    return true;
  }

  /** A socket closed: its records changed unseen meanwhile, so they are read again rather than trusted. */
  private lost(pdas: readonly string[]): void {
    for (const pda of pdas) {
      const entry = this.byPda.get(pda);
      if (entry === undefined) continue;
      this.unfollow(entry.account);
      this.hooks.log()?.debug({ account: entry.account }, 'delegation record no longer followed');
      this.hooks.lost(entry.account);
    }
  }
}
