import type { Redis } from 'ioredis';
import { Affinity, type AffinityStore } from '../upstream/affinity.js';
import { isReady } from './redis-client.js';

/** The key of a tracked signature's upstream (after the client's keyPrefix). */
export const affinityKey = (signature: string): string => `affinity:${signature}`;

const isHttpUrl = (text: string): boolean => {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * Affinity shared by every instance: track() on one steers the lookups of all, for
 * `ttlSeconds`. This instance's own tracks are answered from memory first (no round
 * trip); the rest are asked of Redis in one MGET, only when an upstream is about to be
 * asked anyway. Redis down or slow, or a key that holds no http(s) URL: not tracked.
 */
export class SharedAffinity implements AffinityStore {
  private readonly local: Affinity;

  constructor(
    private readonly client: Redis,
    maxTracked: number,
    private readonly ttlSeconds: number,
  ) {
    this.local = new Affinity(maxTracked);
  }

  track(signature: string, upstreamUrl: string): void {
    this.local.track(signature, upstreamUrl);
    if (!isReady(this.client)) return;
    // Not awaited: a track that cannot be shared still steers this instance.
    this.client.set(affinityKey(signature), upstreamUrl, 'EX', this.ttlSeconds).catch(() => undefined);
  }

  async upstreamsOf(signatures: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const found = this.local.upstreamsOf(signatures);
    // Fresh signatures are tracked nowhere: asking an empty table would hash each text.
    const rest = found.size === 0 ? signatures : signatures.filter((s) => !found.has(s));
    if (rest.length === 0 || !isReady(this.client)) return found;
    let urls: (string | null)[];
    try {
      urls = await this.client.mget(rest.map(affinityKey));
    } catch {
      return found;
    }
    rest.forEach((signature, i) => {
      const url = urls[i];
      if (typeof url === 'string' && isHttpUrl(url)) found.set(signature, url);
    });
    return found;
  }
}
