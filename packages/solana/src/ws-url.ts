import { redactUrl } from '@rollup-router/core';

// @solana/web3.js's makeWebsocketUrl pattern: scheme, host (or [IPv6]), optional :port, rest;
// with the user info (up to the last `@` before the path) kept apart, so its `:` is no port.
const URL_PARTS = /^[^:]+:\/\/([^/?#]*@)?([^:[/?#]+|\[[^\]]+\])(:\d+)?(.*)$/i;

/**
 * The websocket URL of a node's JSON-RPC URL (a cluster, an upstream), derived the way @solana/web3.js's
 * Connection derives it: http→ws, https→wss, and port + 1 when the URL names a port
 * (a validator serves its websocket on the next port), the rest unchanged. User info
 * stays: the websocket is on the same host, behind the same credentials.
 */
export function deriveWsUrl(httpUrl: string): string {
  const parts = URL_PARTS.exec(httpUrl);
  if (!parts) throw new TypeError(`not an http(s) URL: ${redactUrl(httpUrl)}`);
  const [, userinfo = '', host, portWithColon, rest] = parts;
  const scheme = /^https:/i.test(httpUrl) ? 'wss:' : 'ws:';
  const port = portWithColon === undefined ? '' : `:${Number(portWithColon.slice(1)) + 1}`;
  return `${scheme}//${userinfo}${host}${port}${rest}`;
}
