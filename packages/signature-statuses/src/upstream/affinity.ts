import { textKey } from '@rollup-router/solana';
import { LRUCache } from 'lru-cache';

/**
 * Which upstream got which transaction, as the Magic Router remembers it: the node a
 * transaction was sent to knows its status first, so it is asked before anyone else.
 * The directory asks an AffinityStore; this process's memory is one, Redis (shared by
 * every instance) another. A store holds upstream names, never URLs: the directory turns
 * a name into one of the configured upstreams, or into nothing.
 */
export interface AffinityStore {
  track(signature: string, upstreamName: string): void;
  /** The name of the upstream each tracked signature among `signatures` was sent to. */
  upstreamsOf(
    signatures: readonly string[],
  ): ReadonlyMap<string, string> | Promise<ReadonlyMap<string, string>>;
}

/** A tracked transaction: two signatures may share a key. */
interface Track {
  readonly signature: string;
  readonly name: string;
}

/**
 * Affinity in this process's memory. Bounded: the least recently tracked signatures are
 * forgotten first. Keyed by textKey, as the memory cache is: every fresh signature is
 * looked up here, and a table by text hashed each one's 88 characters. Of two signatures
 * sharing a key the one tracked last is kept; the other is asked of every upstream.
 */
export class Affinity implements AffinityStore {
  private readonly tracked: LRUCache<number, Track> | undefined;

  constructor(max: number) {
    this.tracked = max > 0 ? new LRUCache({ max }) : undefined;
  }

  track(signature: string, upstreamName: string): void {
    this.tracked?.set(textKey(signature), { signature, name: upstreamName });
  }

  /** The name of the upstream `signature` was sent to, if tracked. */
  upstreamOf(signature: string): string | undefined {
    const track = this.tracked?.get(textKey(signature));
    return track?.signature === signature ? track.name : undefined;
  }

  upstreamsOf(signatures: readonly string[]): Map<string, string> {
    const found = new Map<string, string>();
    // A router that routes no transactions tracks none: no key to compute per signature.
    if (!this.tracked?.size) return found;
    for (const signature of signatures) {
      const name = this.upstreamOf(signature);
      if (name !== undefined) found.set(signature, name);
    }
    return found;
  }
}
