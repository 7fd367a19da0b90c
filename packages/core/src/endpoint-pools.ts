import { LRUCache } from 'lru-cache';
import type { Pool } from 'undici';
import { loadOptionalPackage } from './optional-package.js';
import { basicAuthorization } from './url-credentials.js';

/** Where one URL's requests go. */
export interface Endpoint {
  readonly pool: Pool;
  /** Path and query to post to (providers put API keys there). */
  readonly path: string;
  /** Basic credentials from the URL's user info, which a Pool (built on the origin) would drop. */
  readonly authorization: string | undefined;
}

export interface EndpointPoolsOptions {
  /** Connections per URL; undefined: undici's default (no bound). */
  readonly connections: number | undefined;
  /** Pools kept open; beyond it the least recently used one is closed. */
  readonly max: number;
  /** How long an idle keep-alive connection stays open; undefined: undici's default. */
  readonly keepAliveTimeoutMs: number | undefined;
}

/**
 * One keep-alive undici Pool per URL. The URLs asked come and go (route nodes, extra
 * upstreams), so pools live in an LRU and the least recently used one is closed beyond
 * the limit; a later request to its URL opens a new one.
 */
export class EndpointPools {
  private readonly endpoints: LRUCache<string, Endpoint>;
  private readonly Pool: typeof Pool;

  constructor(private readonly options: EndpointPoolsOptions) {
    // An optional peer of core: an embedder of the dispatcher alone makes no outgoing calls.
    this.Pool = loadOptionalPackage<typeof import('undici')>(
      import.meta.url,
      'undici',
      'JsonRpcClient is used',
    ).Pool;
    this.endpoints = new LRUCache<string, Endpoint>({
      max: options.max,
      // close() lets requests under way finish.
      dispose: (endpoint) => void endpoint.pool.close().catch(() => undefined),
    });
  }

  /** The endpoint of `url`; throws a TypeError when `url` is not an http(s) URL. */
  get(url: string): Endpoint {
    let endpoint = this.endpoints.get(url);
    if (!endpoint) {
      endpoint = this.open(url);
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

  private open(url: string): Endpoint {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError('not an http(s) URL');
    const { connections, keepAliveTimeoutMs } = this.options;
    return {
      pool: new this.Pool(u.origin, {
        connections: connections ?? null,
        pipelining: 1,
        ...(keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: keepAliveTimeoutMs }),
      }),
      path: `${u.pathname || '/'}${u.search}`,
      authorization: basicAuthorization(u),
    };
  }
}
