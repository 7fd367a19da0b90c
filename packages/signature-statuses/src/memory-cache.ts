import { LRUCache } from 'lru-cache';
import { findEach, type LearnedStatus, type StatusLayer } from './layer.js';
import type { SignatureStatus } from './status.js';

/**
 * The first link of the chain. Finalized statuses never change, so they stay until the
 * LRU evicts them; processed and confirmed ones may move on, so they live in a second
 * cache whose entries expire after a short TTL (none at all by default).
 */
export class MemoryCache implements StatusLayer {
  readonly name = 'memory';
  private readonly finalized: LRUCache<string, SignatureStatus> | undefined;
  private readonly unfinalized: LRUCache<string, SignatureStatus> | undefined;

  constructor(maxEntries: number, unfinalizedTtlMs: number) {
    this.finalized = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
    // No ttlAutopurge: it would keep a timer per entry; stale entries are dropped on read.
    this.unfinalized =
      maxEntries > 0 && unfinalizedTtlMs > 0
        ? new LRUCache({ max: maxEntries, ttl: unfinalizedTtlMs })
        : undefined;
  }

  find(signatures: readonly string[], found: Map<string, SignatureStatus | null>): readonly string[] {
    return findEach(signatures, found, (s) => this.finalized?.get(s) ?? this.unfinalized?.get(s));
  }

  /** Memory keeps every status: finalized ones for good, the others for the TTL. */
  learn(statuses: readonly LearnedStatus[]): void {
    for (const [signature, status] of statuses) {
      if (status.confirmationStatus === 'finalized') {
        this.finalized?.set(signature, status);
        this.unfinalized?.delete(signature);
      } else {
        this.unfinalized?.set(signature, status);
      }
    }
  }

  stop(): void {
    this.finalized?.clear();
    this.unfinalized?.clear();
  }
}
