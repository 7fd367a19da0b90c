import type { Plugin } from './plugin.js';
import { UPSTREAM_HEADER } from './upstream-header.js';

/** CORS is on by default: browsers call routers from web pages. */
export type CorsSetting = '*' | false | readonly string[];

const ALLOW_METHODS = 'POST, OPTIONS';
// A page reads which upstream answered as it reads the request id.
const EXPOSED_HEADERS = `x-request-id, ${UPSTREAM_HEADER}`;
/** Allowed in a pre-flight that lists none; plugins add the headers their clients send (Plugin.allowHeaders). */
const DEFAULT_ALLOW_HEADERS = ['content-type', 'authorization', 'x-request-id'];

export class Cors {
  private readonly origins: ReadonlySet<string> | undefined;
  private readonly allowHeaders: string;

  /** `plugins`: the service's, whose `allowHeaders` are allowed beside the core's. */
  constructor(
    private readonly setting: CorsSetting,
    plugins: readonly Pick<Plugin, 'allowHeaders'>[] = [],
  ) {
    this.origins = Array.isArray(setting) ? new Set(setting) : undefined;
    const more = plugins.flatMap((p) => p.allowHeaders ?? []).map((h) => h.toLowerCase());
    const headers = new Set([...DEFAULT_ALLOW_HEADERS, ...more]);
    this.allowHeaders = [...headers].join(', ');
  }

  /** Adds the headers for a response to `origin`; nothing when the origin is not allowed. */
  apply(headers: Record<string, string>, origin: string | undefined): void {
    if (this.setting === false || origin === undefined) return;
    if (this.setting === '*') {
      headers['access-control-allow-origin'] = '*';
    } else if (this.origins?.has(origin)) {
      headers['access-control-allow-origin'] = origin;
      headers['vary'] = 'Origin';
    } else {
      return;
    }
    headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  }

  /**
   * Whether a WebSocket upgrade from `origin` may open: browsers send Origin and apply no
   * CORS to sockets, so the server must refuse. No Origin (a non-browser client) and the
   * page's own origin (same host) are always allowed; others as for HTTP.
   */
  allowsSocket(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined || this.setting === '*') return true;
    if (this.origins?.has(origin)) return true;
    try {
      return host !== undefined && new URL(origin).host === host.toLowerCase();
    } catch {
      return false;
    }
  }

  preflight(
    headers: Record<string, string>,
    origin: string | undefined,
    requested: string | undefined,
  ): void {
    this.apply(headers, origin);
    if (headers['access-control-allow-origin'] === undefined) return;
    headers['access-control-allow-methods'] = ALLOW_METHODS;
    headers['access-control-allow-headers'] = requested ?? this.allowHeaders;
    headers['access-control-max-age'] = '600';
  }
}
