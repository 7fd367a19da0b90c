import { textKey } from '@rollup-router/solana';
import { LRUCache } from 'lru-cache';
import { findEach, type LearnedStatus, type StatusLayer, type WholeAnswer } from './layer.js';
import type { SignatureStatus } from './status.js';

/** A remembered status with its signature: two signatures may share a key. */
class Entry {
  /** The last findAll that met this entry: a signature repeated in one call meets it again. */
  lastCall = 0;

  constructor(
    readonly signature: string,
    readonly status: SignatureStatus,
  ) {}
}

/**
 * The first link of the chain. Finalized statuses never change, so they stay until the
 * LRU evicts them; processed and confirmed ones may move on, so they live in a second
 * cache whose entries expire after a short TTL (none at all by default). Both are keyed by
 * textKey, not the signature text, which V8 would hash whole on every call. Of two
 * signatures sharing a key the one learned last is kept: in a full cache of 100,000 about
 * five pairs take turns (30-bit keys), a rare miss that the next layer answers, never a
 * wrong answer.
 */
export class MemoryCache implements StatusLayer {
  readonly name = 'memory';
  private readonly finalized: LRUCache<number, Entry> | undefined;
  private readonly unfinalized: LRUCache<number, Entry> | undefined;
  private calls = 0;

  constructor(maxEntries: number, unfinalizedTtlMs: number) {
    this.finalized = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
    // No ttlAutopurge: it would keep a timer per entry; stale entries are dropped on read.
    this.unfinalized =
      maxEntries > 0 && unfinalizedTtlMs > 0
        ? new LRUCache({ max: maxEntries, ttl: unfinalizedTtlMs })
        : undefined;
  }

  find(signatures: readonly string[], found: Map<string, SignatureStatus | null>): readonly string[] {
    return findEach(signatures, found, (s) => this.entry(s)?.status);
  }

  /**
   * Counts the distinct signatures by their entries (one per remembered signature), each
   * marked with the call's number when first met: no table of the call's signatures.
   */
  findAll(signatures: readonly string[]): WholeAnswer | undefined {
    const call = ++this.calls;
    const statuses: SignatureStatus[] = [];
    let distinct = 0;
    for (const signature of signatures) {
      const entry = this.entry(signature);
      if (!entry) return undefined;
      statuses.push(entry.status);
      if (entry.lastCall !== call) {
        entry.lastCall = call;
        distinct += 1;
      }
    }
    return { statuses, distinct };
  }

  /** Memory keeps every status: finalized ones for good, the others for the TTL. */
  learn(statuses: readonly LearnedStatus[]): void {
    for (const [signature, status] of statuses) {
      const key = textKey(signature);
      const entry = new Entry(signature, status);
      if (status.confirmationStatus === 'finalized') {
        this.finalized?.set(key, entry);
        if (this.unfinalized?.peek(key)?.signature === signature) this.unfinalized.delete(key);
      } else {
        this.unfinalized?.set(key, entry);
      }
    }
  }

  stop(): void {
    this.finalized?.clear();
    this.unfinalized?.clear();
  }

  private entry(signature: string): Entry | undefined {
    const key = textKey(signature);
    const finalized = this.finalized?.get(key);
    if (finalized?.signature === signature) return finalized;
    const unfinalized = this.unfinalized?.get(key);
    return unfinalized?.signature === signature ? unfinalized : undefined;
  }
}
