import { LRUCache } from 'lru-cache';
import type { Upstream } from './upstream.js';

/**
 * Which upstream a value came from or went to (a blockhash handed out, a transaction
 * sent), bounded, so that a later question about it, from any client, goes to the chain
 * that knows. Since that decides for other clients, the callers remember only what they
 * can vouch for, and an ER never takes a value over from the base chain: an ER that hands
 * out one of the base chain's blockhashes must not become the one asked whether it is
 * still valid.
 */
export class Origins {
  private readonly known: LRUCache<string, Upstream>;

  constructor(max: number) {
    this.known = new LRUCache({ max });
  }

  remember(key: string, upstream: Upstream): void {
    const held = this.known.get(key);
    if (held !== undefined && held.identity === undefined && upstream.identity !== undefined) return;
    this.known.set(key, upstream);
  }

  of(key: string): Upstream | undefined {
    return this.known.get(key);
  }
}
