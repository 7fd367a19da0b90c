import type { RedisClientLike } from './redis-client-like.js';
import { Affinity, type AffinityStore } from '../upstream/affinity.js';
import { isReady } from './redis-client.js';

/** The key of a tracked signature's upstream name (after the client's keyPrefix). */
export const affinityKey = (signature: string): string => `affinity:${signature}`;

/**
 * Affinity shared by every instance: track() on one steers the lookups of all, for
 * `ttlSeconds`. This instance's own tracks are answered from memory first (no round
 * trip); the rest are asked of Redis in one MGET, only when an upstream is about to be
 * asked anyway. Redis down or slow: not tracked. Redis holds upstream names, never URLs
 * (no address to call, no API key): what is read back is only ever looked up among this
 * instance's configured upstreams by the directory, and anything else there is a miss.
 */
export class SharedAffinity implements AffinityStore {
  private readonly local: Affinity;

  constructor(
    private readonly client: RedisClientLike,
    maxTracked: number,
    private readonly ttlSeconds: number,
  ) {
    this.local = new Affinity(maxTracked);
  }

  track(signature: string, upstreamName: string): void {
    this.local.track(signature, upstreamName);
    if (!isReady(this.client)) return;
    // Not awaited: a track that cannot be shared still steers this instance.
    this.client.set(affinityKey(signature), upstreamName, 'EX', this.ttlSeconds).catch(() => undefined);
  }

  async upstreamsOf(signatures: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const found = this.local.upstreamsOf(signatures);
    // Fresh signatures are tracked nowhere: asking an empty table would hash each text.
    const rest = found.size === 0 ? signatures : signatures.filter((s) => !found.has(s));
    if (rest.length === 0 || !isReady(this.client)) return found;
    let names: (string | null)[];
    try {
      names = await this.client.mget(rest.map(affinityKey));
    } catch {
      return found;
    }
    rest.forEach((signature, i) => {
      const name = names[i];
      if (typeof name === 'string') found.set(signature, name);
    });
    return found;
  }
}
