import { LRUCache } from 'lru-cache';
import type { SignatureStatus } from './status.js';

/**
 * The first link of the chain. Finalized statuses never change, so they stay until the
 * LRU evicts them; processed and confirmed ones may move on, so they live in a second
 * cache whose entries expire after a short TTL (none at all by default).
 */
export class MemoryCache {
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

  get(signature: string): SignatureStatus | undefined {
    return this.finalized?.get(signature) ?? this.unfinalized?.get(signature);
  }

  set(signature: string, status: SignatureStatus): void {
    if (status.confirmationStatus === 'finalized') {
      this.finalized?.set(signature, status);
      this.unfinalized?.delete(signature);
    } else {
      this.unfinalized?.set(signature, status);
    }
  }

  clear(): void {
    this.finalized?.clear();
    this.unfinalized?.clear();
  }
}
