import { redactUrl } from '@rollup-router/core';

// @solana/web3.js's makeWebsocketUrl pattern: scheme, host (or [IPv6]), optional :port, rest;
// with the user info (up to the last `@` before the path) kept apart, so its `:` is no port.
const URL_PARTS = /^[^:]+:\/\/([^/?#]*@)?([^:[/?#]+|\[[^\]]+\])(:\d+)?(.*)$/i;

/**
 * The websocket URL of an upstream's JSON-RPC URL, derived the way @solana/web3.js's
 * Connection derives it: http→ws, https→wss, and port + 1 when the URL names a port, the
 * rest (path, query, user info) unchanged. The same rule as the routes package's
 * deriveWsUrl (packages/routes/src/chain/ws-url.ts), which this package cannot import:
 * a change to one is a change to both.
 */
export function deriveWsUrl(httpUrl: string): string {
  const parts = URL_PARTS.exec(httpUrl);
  if (!parts) throw new TypeError(`not an http(s) URL: ${redactUrl(httpUrl)}`);
  const [, userinfo = '', host, portWithColon, rest] = parts;
  const scheme = /^https:/i.test(httpUrl) ? 'wss:' : 'ws:';
  const port = portWithColon === undefined ? '' : `:${Number(portWithColon.slice(1)) + 1}`;
  return `${scheme}//${userinfo}${host}${port}${rest}`;
}
