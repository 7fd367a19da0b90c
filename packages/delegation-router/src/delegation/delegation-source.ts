import type { PluginContext } from '@rollup-router/core';
import { address, type Address } from '@solana/kit';
import { LRUCache } from 'lru-cache';
import { badReply, type UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import { delegationRecordAddress } from './record-address.js';
import { decodeDelegationRecord, type DelegationRecord } from './record-codec.js';

type Logger = PluginContext['log'];

export interface DelegationSourceOptions {
  readonly baseChain: Upstream;
  readonly programId: string;
  readonly commitment: 'processed' | 'confirmed' | 'finalized';
  readonly maxEntries: number;
  readonly ttlMs: number;
}

/** What is known of one account: its record, or `null` when it is not delegated. */
type Known = { readonly record: DelegationRecord | null };

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

  constructor(
    private readonly options: DelegationSourceOptions,
    private readonly caller: UpstreamCaller,
    private readonly log: () => Logger | undefined,
  ) {
    this.programId = address(options.programId);
    this.cache = new LRUCache({ max: options.maxEntries, ttl: options.ttlMs });
    this.unreadable = new LRUCache({ max: Math.min(options.maxEntries, 10_000) });
  }

  /** The delegation record of each account, in order; null where it is not delegated. */
  recordsOf(accounts: readonly string[]): Promise<(DelegationRecord | null)[]> {
    return Promise.all(accounts.map((a) => this.recordOf(a)));
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

  private async read(misses: readonly Miss[]): Promise<void> {
    try {
      const pdas = await Promise.all(
        misses.map((m) => delegationRecordAddress(address(m.account), this.programId)),
      );
      const reply = await this.caller.call<unknown>(this.options.baseChain, 'getMultipleAccounts', [
        pdas,
        { encoding: 'base64', commitment: this.options.commitment },
      ]);
      const value = accountsIn(reply, pdas.length);
      if (!value) throw badReply(this.options.baseChain, 'getMultipleAccounts answered no account list');
      misses.forEach((miss, i) => {
        const record = this.recordIn(miss.account, pdas[i]!, value[i] ?? null);
        this.cache.set(miss.account, { record });
        miss.resolve(record);
      });
    } catch (err) {
      for (const miss of misses) miss.reject(err);
    }
  }

  /** The record an account holds; one that cannot be read counts as none, logged once. */
  private recordIn(account: string, pda: string, found: EncodedAccount): DelegationRecord | null {
    if (found === null) return null;
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
