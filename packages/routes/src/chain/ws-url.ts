// @solana/web3.js's makeWebsocketUrl pattern: scheme, host (or [IPv6]), optional :port, rest.
const URL_PARTS = /^[^:]+:\/\/([^:[/?#]+|\[[^\]]+\])(:\d+)?(.*)$/i;

/**
 * The websocket URL of a cluster's JSON-RPC URL, derived the way @solana/web3.js's
 * Connection derives it: http→ws, https→wss, and port + 1 when the URL names a port
 * (a validator serves its websocket on the next port), the rest unchanged.
 */
export function deriveWsUrl(httpUrl: string): string {
  const parts = URL_PARTS.exec(httpUrl);
  if (!parts) throw new TypeError(`not an http(s) URL: ${httpUrl}`);
  const [, host, portWithColon, rest] = parts;
  const scheme = /^https:/i.test(httpUrl) ? 'wss:' : 'ws:';
  const port = portWithColon === undefined ? '' : `:${Number(portWithColon.slice(1)) + 1}`;
  return `${scheme}//${host}${port}${rest}`;
}
