import type { PluginContext } from '@rollup-router/core';
import { address, createSolanaRpcSubscriptions } from '@solana/kit';

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

/**
 * Follows delegation records with accountSubscribe on the base chain, so that a cached
 * record changes the moment the chain says so (a delegation, an undelegation), not when
 * its cache entry expires. One subscription per cached account, ended when the entry goes.
 */
export class RecordFollower {
  private readonly subscriptions: ReturnType<typeof createSolanaRpcSubscriptions>;
  private readonly followed = new Map<string, AbortController>();
  private readonly stopping = new AbortController();
  private failedAt = -Infinity;

  constructor(
    wsUrl: string,
    private readonly commitment: 'processed' | 'confirmed' | 'finalized',
    private readonly hooks: FollowerHooks,
  ) {
    this.subscriptions = createSolanaRpcSubscriptions(wsUrl);
  }

  /**
   * Subscribes to the record of `account`; true once the chain confirmed it, false when it
   * could not (the caller then trusts its read only for the unfollowed TTL).
   */
  async follow(account: string, pda: string): Promise<boolean> {
    if (this.followed.has(account)) return true;
    if (this.stopping.signal.aborted || Date.now() - this.failedAt < RETRY_AFTER_MS) return false;
    const own = new AbortController();
    this.followed.set(account, own);
    const abortSignal = AbortSignal.any([this.stopping.signal, own.signal]);
    let timer: NodeJS.Timeout | undefined;
    try {
      const stream = await Promise.race([
        this.subscriptions
          .accountNotifications(address(pda), { encoding: 'base64', commitment: this.commitment })
          .subscribe({ abortSignal }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error('accountSubscribe not confirmed in time')),
            SUBSCRIBE_TIMEOUT_MS,
          );
        }),
      ]);
      void (async () => {
        try {
          for await (const n of stream) {
            this.hooks.changed(account, pda, n.value as NotifiedAccount | null, n.context.slot);
          }
        } catch (err) {
          if (!abortSignal.aborted)
            this.hooks.log()?.debug({ account, err }, 'delegation record no longer followed');
        }
        if (!abortSignal.aborted) this.drop(account);
      })();
      return true;
    } catch (err) {
      own.abort();
      this.followed.delete(account);
      if (Date.now() - this.failedAt >= RETRY_AFTER_MS) {
        this.hooks
          .log()
          ?.warn({ err }, 'delegation records not followed (base chain websocket); reads expire instead');
      }
      this.failedAt = Date.now();
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the subscription of `account` (its cache entry went). */
  unfollow(account: string): void {
    this.followed.get(account)?.abort();
    this.followed.delete(account);
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
    this.stopping.abort();
    this.followed.clear();
  }

  private drop(account: string): void {
    this.followed.delete(account);
    this.hooks.lost(account);
  }
}
