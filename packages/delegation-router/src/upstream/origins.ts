import { LRUCache } from 'lru-cache';
import type { Upstream } from './upstream.js';

/**
 * Which upstream a value came from or went to (a blockhash handed out, a transaction
 * sent), bounded, so that a later question about it goes to the chain that knows.
 */
export class Origins {
  private readonly known: LRUCache<string, Upstream>;

  constructor(max: number) {
    this.known = new LRUCache({ max });
  }

  remember(key: string, upstream: Upstream): void {
    this.known.set(key, upstream);
  }

  of(key: string): Upstream | undefined {
    return this.known.get(key);
  }
}
