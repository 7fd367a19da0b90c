import { LRUCache } from 'lru-cache';

/**
 * Which upstream got which transaction, as the Magic Router remembers it: the node a
 * transaction was sent to knows its status first, so it is asked before anyone else.
 * Bounded: the least recently tracked signatures are forgotten first.
 */
export class Affinity {
  private readonly tracked: LRUCache<string, string> | undefined;

  constructor(max: number) {
    this.tracked = max > 0 ? new LRUCache({ max }) : undefined;
  }

  track(signature: string, upstreamUrl: string): void {
    this.tracked?.set(signature, upstreamUrl);
  }

  /** The upstream `signature` was sent to, if tracked. */
  upstreamOf(signature: string): string | undefined {
    return this.tracked?.get(signature);
  }
}
