import type { PluginContext } from '@rollup-router/core';
import { address, type Address } from '@solana/kit';
import { LRUCache } from 'lru-cache';
import { badReply, type UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import { delegationRecordAddress } from './record-address.js';
import { decodeDelegationRecord, type DelegationRecord } from './record-codec.js';
import { RecordFollower, type NotifiedAccount } from './record-follower.js';
import type { SharedDelegations } from './shared-delegations.js';

type Logger = PluginContext['log'];

export interface DelegationSourceOptions {
  readonly baseChain: Upstream;
  readonly programId: string;
  readonly commitment: 'processed' | 'confirmed' | 'finalized';
  readonly maxEntries: number;
  /** How long a read is trusted when its record could not be followed. */
  readonly ttlMs: number;
  /** With a websocket URL, records are followed with accountSubscribe and trusted this long. */
  readonly follow?: { readonly wsUrl: string; readonly ttlMs: number };
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
}

/** What is known of one account: its record, or `null` when it is not delegated, as of `slot`. */
type Known = { readonly record: DelegationRecord | null; readonly slot: bigint };

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

  /** The delegation record of each account, in order; null where it is not delegated. */
  recordsOf(accounts: readonly string[]): Promise<(DelegationRecord | null)[]> {
    // Every one cached, as for an app's usual accounts: one promise, not one per account.
    const known: (DelegationRecord | null)[] = [];
    for (const account of accounts) {
      const hit = this.cache.get(account);
      if (hit === undefined) return Promise.all(accounts.map((a) => this.recordOf(a)));
      known.push(hit.record);
    }
    return Promise.resolve(known);
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
      const allPdas = await Promise.all(
        all.map((m) => delegationRecordAddress(address(m.account), this.programId)),
      );
      // Subscribe before reading, so that no change between the read and the subscription is missed.
      const allFollowed = await Promise.all(
        all.map((m, i) => this.follower?.follow(m.account, allPdas[i]!) ?? false),
      );
      const shared = (await this.options.shared?.get(all.map((m) => m.account))) ?? new Map<string, never>();
      const misses: Miss[] = [];
      const pdas: string[] = [];
      const followed: boolean[] = [];
      all.forEach((miss, i) => {
        const read = shared.get(miss.account);
        if (read === undefined) {
          misses.push(miss);
          pdas.push(allPdas[i]!);
          followed.push(allFollowed[i]!);
          return;
        }
        // Another instance's read is trusted only as long as it trusted it itself.
        if (this.cache.peek(miss.account) === undefined) {
          this.cache.set(miss.account, read, { ttl: Math.max(1, read.until - Date.now()) });
          this.tell(miss.account, read.record);
        }
        miss.resolve(this.recordNow(miss.account, read.record));
      });
      if (misses.length === 0) return;
      const reply = await this.caller.call<unknown>(this.options.baseChain, 'getMultipleAccounts', [
        pdas,
        { encoding: 'base64', commitment: this.options.commitment },
      ]);
      const value = accountsIn(reply, pdas.length);
      if (!value) throw badReply(this.options.baseChain, 'getMultipleAccounts answered no account list');
      const slot = BigInt((reply as { context?: { slot?: number } }).context?.slot ?? 0);
      misses.forEach((miss, i) => {
        const record = this.recordIn(miss.account, pdas[i]!, value[i] ?? null);
        // A notification that came in meanwhile is newer than this read: it stands.
        const notified = this.cache.peek(miss.account);
        if (notified === undefined || notified.slot < slot) {
          this.cache.set(miss.account, { record, slot }, { ttl: this.ttlOf(followed[i]!) });
          this.options.shared?.put(miss.account, record, slot);
          this.tell(miss.account, record);
        }
        miss.resolve(this.recordNow(miss.account, record));
      });
    } catch (err) {
      for (const miss of all) miss.reject(err);
    }
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
    if (known !== undefined && known.slot > slot) return;
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
