import type { PluginContext } from '@rollup-router/core';
import type { Commitment } from '@rollup-router/solana';
import { address, type Address } from '@solana/kit';
import { LRUCache } from 'lru-cache';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import type { WsUrl } from '@rollup-router/core/upstream-socket';
import { delegationRecordAddress } from './record-address.js';
import { decodeDelegationRecord, type DelegationRecord } from './record-codec.js';
import { RecordFollower, type NotifiedAccount } from './record-follower.js';
import type { SharedDelegations } from './shared-delegations.js';

type Logger = PluginContext['log'];

export interface DelegationSourceOptions {
  readonly baseChain: Upstream;
  readonly programId: string;
  readonly commitment: Commitment;
  readonly maxEntries: number;
  /** How long a read is trusted when its record could not be followed. */
  readonly ttlMs: number;
  /**
   * With a websocket URL, the records routing depends on are followed with accountSubscribe
   * and trusted this long, `max` of them at most.
   */
  readonly follow?: { readonly wsUrl: WsUrl; readonly ttlMs: number; readonly max: number };
  /** Reads shared with other instances through Redis. */
  readonly shared?: SharedDelegations;
}

/** Told what the source learns of the accounts it holds (the websocket relay switches upstreams on it). */
export interface DelegationListener {
  /** What is known of `account` is now `record` (null: not delegated), from a read or a notification. */
  changed(account: string, record: DelegationRecord | null): void;
  /**
   * `account` is no longer held: `evicted` by the bound (asking again would evict another),
   * or dropped otherwise (its record no longer followed, expired, cleared): ask again to keep up.
   */
  forgotten(account: string, evicted: boolean): void;
  /** Whether `account` must be followed even while not delegated (a subscription relayed for it). */
  wants(account: string): boolean;
}

/**
 * What is known of one account: its record, or `null` when it is not delegated, as of
 * `slot`. `shared` marks what another instance wrote to Redis: its slot is the writer's
 * word, so anything this instance reads or is notified of itself replaces it.
 */
type Known = { readonly record: DelegationRecord | null; readonly slot: bigint; readonly shared?: true };

interface Miss {
  readonly account: string;
  readonly resolve: (record: DelegationRecord | null) => void;
  readonly reject: (err: unknown) => void;
}

/** Agave's getMultipleAccounts takes at most 100 keys. */
const MAX_KEYS_PER_READ = 100;

type EncodedAccount = { readonly data: readonly [string, string]; readonly owner: string } | null;

/**
 * Where accounts are delegated, read from their delegation records on the base chain.
 * A bounded cache answers most lookups; the misses of every lookup under way are read
 * together, with one getMultipleAccounts per 100 records, and a record read by one call
 * is not read again by a concurrent one.
 */
export class DelegationSource {
  private readonly cache: LRUCache<string, Known>;
  private readonly reading = new Map<string, Promise<DelegationRecord | null>>();
  private queue: Miss[] = [];
  /** Records that did not decode, logged once each (bounded like the cache). */
  private readonly unreadable: LRUCache<string, true>;
  private readonly programId: Address;
  private readonly follower: RecordFollower | undefined;
  private readonly listeners = new Set<DelegationListener>();
  private capWarned = false;

  constructor(
    private readonly options: DelegationSourceOptions,
    private readonly caller: UpstreamCaller,
    private readonly log: () => Logger | undefined,
  ) {
    this.programId = address(options.programId);
    this.follower =
      options.follow &&
      new RecordFollower(options.follow.wsUrl, options.commitment, {
        changed: (account, pda, value, slot) => this.changed(account, pda, value, slot),
        lost: (account) => this.cache.delete(account),
        log,
      });
    this.cache = new LRUCache({
      max: options.maxEntries,
      ttl: options.ttlMs,
      // An entry that goes (evicted, expired, deleted) takes its subscription with it.
      dispose: (_value, account, reason) => {
        if (reason === 'set') return;
        this.follower?.unfollow(account);
        for (const l of this.listeners) l.forgotten(account, reason === 'evict');
      },
    });
    this.unreadable = new LRUCache({ max: Math.min(options.maxEntries, 10_000) });
  }

  /** How many records are followed live. */
  get followed(): number {
    return this.follower?.count ?? 0;
  }

  /** Tells `listener` of every change from now on; returns what stops it. */
  listen(listener: DelegationListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Ends every subscription. */
  stop(): void {
    this.follower?.stop();
  }

  /**
   * The delegation record of each account, in order; null where it is not delegated. Every
   * one cached, as for an app's usual accounts, they are answered now: no promise, and no
   * turn of the event loop before the call goes on.
   */
  recordsOf(accounts: readonly string[]): (DelegationRecord | null)[] | Promise<(DelegationRecord | null)[]> {
    const known: (DelegationRecord | null)[] = [];
    for (const account of accounts) {
      const hit = this.cache.get(account);
      if (hit === undefined) return Promise.all(accounts.map((a) => this.recordOf(a)));
      known.push(hit.record);
    }
    return known;
  }

  recordOf(account: string): Promise<DelegationRecord | null> {
    const known = this.cache.get(account);
    if (known) return Promise.resolve(known.record);
    const under = this.reading.get(account);
    if (under) return under;
    const read = new Promise<DelegationRecord | null>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.flush());
      this.queue.push({ account, resolve, reject });
    });
    this.reading.set(account, read);
    const done = (): void => void this.reading.delete(account);
    read.then(done, done);
    return read;
  }

  /** Forgets what is cached (tests; an operator's reload). */
  clear(): void {
    this.cache.clear();
  }

  private async flush(): Promise<void> {
    const misses = this.queue;
    this.queue = [];
    for (let i = 0; i < misses.length; i += MAX_KEYS_PER_READ) {
      void this.read(misses.slice(i, i + MAX_KEYS_PER_READ));
    }
  }

  private async read(all: readonly Miss[]): Promise<void> {
    try {
      const pdas = await Promise.all(
        all.map((m) => delegationRecordAddress(address(m.account), this.programId)),
      );
      // Accounts followed whatever their record says are subscribed before the read, so that
      // no change between the read and the subscription is missed.
      const followedBefore = await Promise.all(
        all.map((m, i) => (this.mustFollow(m.account) ? this.follow(m.account, pdas[i]!) : false)),
      );
      const misses = await this.takeShared(all, pdas, followedBefore);
      if (misses.length === 0) return;
      const asked = misses.map((i) => pdas[i]!);
      const reply = await this.caller.call<unknown>(this.options.baseChain, 'getMultipleAccounts', [
        asked,
        { encoding: 'base64', commitment: this.options.commitment },
      ]);
      const value = accountsIn(reply, asked.length);
      if (!value) {
        throw this.caller.badReply(
          this.options.baseChain,
          'getMultipleAccounts',
          'getMultipleAccounts answered no account list',
        );
      }
      const slot = BigInt((reply as { context?: { slot?: number } }).context?.slot ?? 0);
      misses.forEach((i, k) => {
        const miss = all[i]!;
        const record = this.recordIn(miss.account, pdas[i]!, value[k] ?? null);
        // Found delegated: followed from now on, so that its undelegation is seen at once. Not
        // subscribed before this read, so trusted only ttlMs: the next read is then followed.
        if (record !== null && !followedBefore[i]) void this.follow(miss.account, pdas[i]!);
        // A notification that came in meanwhile is newer than this read: it stands.
        const notified = this.cache.peek(miss.account);
        if (notified === undefined || notified.shared || notified.slot < slot) {
          this.cache.set(miss.account, { record, slot }, { ttl: this.ttlOf(followedBefore[i]!) });
          this.options.shared?.put(miss.account, record, slot);
          this.tell(miss.account, record);
        }
        miss.resolve(this.recordNow(miss.account, record));
      });
    } catch (err) {
      // A follow is ended with its cache entry: one that got none is ended here.
      for (const miss of all) {
        if (!this.cache.has(miss.account)) this.follower?.unfollow(miss.account);
        miss.reject(err);
      }
    }
  }

  /**
   * Resolves the lookups another instance's read in Redis answers; returns the indexes of
   * the others, to be read from the base chain.
   */
  private async takeShared(
    all: readonly Miss[],
    pdas: readonly string[],
    followedBefore: readonly boolean[],
  ): Promise<number[]> {
    const shared = (await this.options.shared?.get(all.map((m) => m.account))) ?? new Map<string, never>();
    const misses: number[] = [];
    all.forEach((miss, i) => {
      const read = shared.get(miss.account);
      if (read === undefined) return void misses.push(i);
      // What another instance wrote is trusted for ttlMs from now at most, whatever it says.
      if (this.cache.peek(miss.account) === undefined) {
        // Followed like a delegation read here: the chain's own word then replaces it at once.
        if (read.record !== null && !followedBefore[i]) void this.follow(miss.account, pdas[i]!);
        const ttl = Math.max(1, Math.min(this.options.ttlMs, read.until - Date.now()));
        this.cache.set(miss.account, { record: read.record, slot: read.slot, shared: true }, { ttl });
        this.tell(miss.account, read.record);
      }
      miss.resolve(this.recordNow(miss.account, read.record));
    });
    return misses;
  }

  /**
   * Makes sure `account` is followed while its subscriptions are relayed, and returns its
   * record. A record cached unfollowed is followed from now on and read again when its
   * entry expires (within ttlMs), then with the subscription in place.
   */
  watch(account: string): Promise<DelegationRecord | null> {
    if (this.follower !== undefined && this.cache.has(account) && !this.follower.follows(account)) {
      void delegationRecordAddress(address(account), this.programId).then((pda) => this.follow(account, pda));
    }
    return this.recordOf(account);
  }

  /** Whether routing needs `account` followed whatever its record says. */
  private mustFollow(account: string): boolean {
    if (this.follower === undefined) return false;
    if (this.follower.follows(account)) return true;
    for (const l of this.listeners) if (l.wants(account)) return true;
    return false;
  }

  /** Follows `account`'s record unless the cap is reached; true once the chain confirmed it. */
  private follow(account: string, pda: string): Promise<boolean> {
    const follower = this.follower;
    if (follower === undefined) return Promise.resolve(false);
    if (!follower.follows(account) && follower.count >= this.options.follow!.max) {
      if (!this.capWarned) {
        this.capWarned = true;
        this.log()?.warn(
          { maxFollowed: this.options.follow!.max },
          'delegation records followed reached delegations.maxFollowed; others are read and trusted for ttlMs',
        );
      }
      return Promise.resolve(false);
    }
    return follower.follow(account, pda);
  }

  /** What the cache holds for `account` now (a notification may be newer than `read`). */
  private recordNow(account: string, read: DelegationRecord | null): DelegationRecord | null {
    const known = this.cache.peek(account);
    return known === undefined ? read : known.record;
  }

  private ttlOf(followed: boolean): number {
    return followed && this.options.follow ? this.options.follow.ttlMs : this.options.ttlMs;
  }

  /** A notification of a followed record: the cache takes it unless it holds a newer read. */
  private changed(account: string, pda: string, value: NotifiedAccount | null, slot: bigint): void {
    const known = this.cache.peek(account);
    if (known !== undefined && !known.shared && known.slot > slot) return;
    const record = this.recordIn(account, pda, value);
    this.cache.set(account, { record, slot }, { ttl: this.ttlOf(true) });
    this.options.shared?.put(account, record, slot);
    this.tell(account, record);
  }

  private tell(account: string, record: DelegationRecord | null): void {
    for (const l of this.listeners) l.changed(account, record);
  }

  /** The record an account holds; one that cannot be read counts as none, logged once. */
  private recordIn(
    account: string,
    pda: string,
    found: EncodedAccount | NotifiedAccount | null,
  ): DelegationRecord | null {
    // A closed record (an undelegation) is notified as an empty account.
    if (found === null || found.data[0] === '') return null;
    const reason =
      found.owner !== this.programId
        ? `owned by ${found.owner}, not the delegation program`
        : found.data[1] !== 'base64'
          ? `encoding ${found.data[1]}`
          : undefined;
    const decoded = reason
      ? ({ ok: false, reason } as const)
      : decodeDelegationRecord(Buffer.from(found.data[0], 'base64'));
    if (decoded.ok) return decoded.record;
    if (!this.unreadable.has(pda)) {
      this.unreadable.set(pda, true);
      this.log()?.warn(
        { account, record: pda, reason: decoded.reason },
        'delegation record unreadable; the account counts as not delegated',
      );
    }
    return null;
  }
}

const isEncodedAccount = (a: unknown): a is EncodedAccount =>
  a === null ||
  (typeof a === 'object' &&
    Array.isArray((a as { data?: unknown }).data) &&
    typeof (a as { data: unknown[] }).data[0] === 'string' &&
    typeof (a as { owner?: unknown }).owner === 'string');

/** The accounts of a getMultipleAccounts reply, when it is one with `count` of them. */
function accountsIn(reply: unknown, count: number): readonly EncodedAccount[] | undefined {
  const value = (reply as { value?: unknown } | null)?.value;
  if (!Array.isArray(value) || value.length !== count || !value.every(isEncodedAccount)) return undefined;
  return value;
}
