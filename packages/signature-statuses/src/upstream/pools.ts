import { LRUCache } from 'lru-cache';
import { Pool } from 'undici';

export interface UpstreamEndpoint {
  readonly pool: Pool;
  /** Path and query to post to (providers put API keys there). */
  readonly path: string;
  /** Basic auth from the URL's user info, which a Pool (built on the origin) would drop. */
  readonly authorization: string | undefined;
}

/**
 * One keep-alive undici Pool per upstream URL. Extra upstreams (route nodes) come and
 * go, so pools are kept in an LRU and the least recently used one is closed beyond the limit.
 */
export class UpstreamPools {
  private readonly endpoints: LRUCache<string, UpstreamEndpoint>;

  constructor(
    private readonly connections: number,
    max: number,
  ) {
    this.endpoints = new LRUCache<string, UpstreamEndpoint>({
      max,
      // close() lets requests under way finish; a later request makes a new pool.
      dispose: (endpoint) => void endpoint.pool.close().catch(() => undefined),
    });
  }

  /** The pool for `url`; throws a TypeError when `url` is not an http(s) URL. */
  get(url: string): UpstreamEndpoint {
    let endpoint = this.endpoints.get(url);
    if (!endpoint) {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`not an http(s) URL`);
      endpoint = {
        pool: new Pool(u.origin, { connections: this.connections, pipelining: 1 }),
        path: `${u.pathname || '/'}${u.search}`,
        authorization:
          u.username === ''
            ? undefined
            : `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`,
      };
      this.endpoints.set(url, endpoint);
    }
    return endpoint;
  }

  /** Closes every pool, waiting for requests under way. */
  async close(): Promise<void> {
    const closing = [...this.endpoints.values()].map((e) => e.pool.close().catch(() => undefined));
    this.endpoints.clear();
    await Promise.all(closing);
  }
}
