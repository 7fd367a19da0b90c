import { LRUCache } from 'lru-cache';
import type { buildConnector, Pool } from 'undici';
import type { AddressGuard } from './address-guard.js';
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
 * One keep-alive undici Pool per URL (and address guard: a URL called through a guard
 * has a pool of its own, whose every connection is checked). The URLs asked come and go
 * (route nodes, extra upstreams), so pools live in an LRU and the least recently used one
 * is closed beyond the limit; a later request to its URL opens a new one.
 */
export class EndpointPools {
  private readonly endpoints: LRUCache<string, Endpoint>;
  private readonly undici: typeof import('undici');
  /** Each guard's key prefix: the same URL through two guards is two pools. */
  private readonly guardKeys = new WeakMap<AddressGuard, string>();
  private guardsSeen = 0;

  constructor(private readonly options: EndpointPoolsOptions) {
    // An optional peer of core: an embedder of the dispatcher alone makes no outgoing calls.
    this.undici = loadOptionalPackage<typeof import('undici')>(
      import.meta.url,
      'undici',
      'JsonRpcClient is used',
    );
    this.endpoints = new LRUCache<string, Endpoint>({
      max: options.max,
      // close() lets requests under way finish.
      dispose: (endpoint) => void endpoint.pool.close().catch(() => undefined),
    });
  }

  /**
   * The endpoint of `url`, its connections made through `guard` if given; throws a
   * TypeError when `url` is not an http(s) URL.
   */
  get(url: string, guard?: AddressGuard): Endpoint {
    const key = guard === undefined ? url : `${this.guardKey(guard)} ${url}`;
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      endpoint = this.open(url, guard);
      this.endpoints.set(key, endpoint);
    }
    return endpoint;
  }

  /** Closes every pool, waiting for requests under way. */
  async close(): Promise<void> {
    const closing = [...this.endpoints.values()].map((e) => e.pool.close().catch(() => undefined));
    this.endpoints.clear();
    await Promise.all(closing);
  }

  private guardKey(guard: AddressGuard): string {
    let key = this.guardKeys.get(guard);
    if (key === undefined) {
      // No http(s) URL starts so: no guarded pool's key is a plain one's.
      key = `guard#${this.guardsSeen++}`;
      this.guardKeys.set(guard, key);
    }
    return key;
  }

  private open(url: string, guard: AddressGuard | undefined): Endpoint {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError('not an http(s) URL');
    const { connections, keepAliveTimeoutMs } = this.options;
    return {
      pool: new this.undici.Pool(u.origin, {
        connections: connections ?? null,
        pipelining: 1,
        ...(keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: keepAliveTimeoutMs }),
        ...(guard === undefined ? {} : { connect: this.guardedConnector(guard) }),
      }),
      path: `${u.pathname || '/'}${u.search}`,
      authorization: basicAuthorization(u),
    };
  }

  /**
   * undici's own connector, with every name resolved through the guard; an IP address,
   * which net.connect never looks up, is checked before connecting.
   */
  private guardedConnector(guard: AddressGuard): buildConnector.connector {
    const connect = this.undici.buildConnector({ lookup: guard.lookup });
    return (options, callback) => {
      const refusal = guard.refusalOf(options.hostname);
      // Later, as a failed connect's error comes: undici does not expect its callback within the call.
      if (refusal !== undefined) process.nextTick(callback, refusal, null);
      else connect(options, callback);
    };
  }
}
