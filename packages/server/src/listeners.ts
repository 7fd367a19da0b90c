// The server's listeners: the clients' port, the WebSocket-only port + 1 and the metrics port,
// what each answers, and binding them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { attachWebSocket, createNodeListener, type Rpc, type WebSocketTransport } from '@rollup-router/core';
import { mountPrefix } from '@rollup-router/core/internal';
import type { Logger } from 'pino';
import type { ServerConfig } from './config/server-config.js';
import { createFallback } from './http/fallback.js';
import { listenOn } from './http/listen-on.js';
import type { RequestTracker } from './http/request-tracker.js';
import { SECURITY_HEADERS, withSecurityHeaders } from './http/security-headers.js';
import { websocketOnly } from './http/websocket-only.js';
import type { Scrape } from './cluster/cluster-metrics.js';
import type { ReadinessReport } from './readiness/readiness.js';

export interface Listeners {
  readonly server: Server;
  readonly metricsServer: Server | undefined;
  readonly socketServer: Server | undefined;
}

/**
 * The clients' listener (JSON-RPC, /health, /ready and, unless it has its own port,
 * /metrics) and, with `metrics.port`, the metrics listener. Neither listens yet.
 */
export function createListeners(
  config: ServerConfig,
  rpc: Rpc,
  tracker: RequestTracker,
  ready: () => ReadinessReport,
  /** What GET /metrics answers; undefined when metrics are off. */
  scrape: (() => Promise<Scrape>) | undefined,
  log: Logger,
): Listeners {
  const separate = config.metrics.port !== undefined;
  const metricsToken = config.metrics.token;
  const onError = (err: unknown): void => log.error({ err }, 'fallback route failed');
  // Without a fallback the core's listener answers every POST under the mount as JSON-RPC;
  // inside the fallback, whose replies get the security headers set one by one.
  const otherPosts = createNodeListener(rpc, config.endpoints);
  // RPC replies carry the security headers in their one writeHead; the fallback's get them set.
  const listener = createNodeListener(rpc, {
    ...config.endpoints,
    headers: SECURITY_HEADERS,
    fallback: withSecurityHeaders(
      createFallback({ ready, metrics: separate ? undefined : scrape, metricsToken, onError, otherPosts }),
    ),
  });
  const handler = tracker.wrap(listener);
  const server = createServer(handler);
  // The second listener serves sockets only (attached below): plain HTTP there gets 426 naming this one.
  const mount = mountPrefix(config.endpoints.mountPath);
  const socketServer =
    config.websocket.port === false
      ? undefined
      : createServer(withSecurityHeaders(websocketOnly(() => httpUrl(server, `${mount}/`))));
  const metricsServer =
    scrape && separate
      ? createServer(
          withSecurityHeaders(createFallback({ ready: undefined, metrics: scrape, metricsToken, onError })),
        )
      : undefined;
  return { server, metricsServer, socketServer };
}

/**
 * JSON-RPC over WebSocket on the clients' listener and the second one; a refused upgrade
 * carries the security headers an HTTP refusal does.
 */
export function attachSockets(config: ServerConfig, rpc: Rpc, listeners: Listeners): WebSocketTransport {
  const sockets = attachWebSocket(listeners.server, rpc, {
    path: config.endpoints.mountPath,
    headers: SECURITY_HEADERS,
  });
  if (listeners.socketServer) sockets.attach(listeners.socketServer);
  return sockets;
}

const urlOf = (scheme: string, server: Server, path: string): string => {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}${path}`;
};
export const httpUrl = (server: Server, path: string): string => urlOf('http', server, path);
export const wsUrl = (server: Server, path: string): string => urlOf('ws', server, path);

/** Binds the listeners; when one cannot (port in use), stops what started and rethrows. */
export async function listenOrStop(
  config: ServerConfig,
  server: Server,
  metricsServer: Server | undefined,
  rpc: Rpc,
  socketServer: Server | undefined,
): Promise<void> {
  try {
    await listenOn(server, config.port, config.host, { what: 'the HTTP port', key: '/port', env: 'PORT' });
    if (metricsServer)
      await listenOn(metricsServer, config.metrics.port!, config.metrics.host ?? config.host, {
        what: 'the metrics port',
        key: '/metrics/port',
        ...(config.metrics.host === undefined ? {} : { hostKey: '/metrics/host' }),
      });
    if (socketServer)
      await listenOn(socketServer, socketPort(config), config.host, {
        what: `the WebSocket port${typeof config.websocket.port === 'number' ? '' : ` (port + 1, where @solana/web3.js looks for the socket of port ${config.port})`}`,
        key: '/websocket/port',
        env: 'ROLLUP_ROUTER_WS_PORT',
        off: 'or false (off) to serve WebSocket by upgrade on the HTTP port only',
      });
  } catch (err) {
    for (const s of [server, metricsServer]) if (s?.listening) s.close();
    await rpc.stop();
    throw err;
  }
}

/** Where @solana/web3.js looks for the socket of http://host:PORT: PORT + 1 (any free port when PORT is 0). */
function socketPort(config: ServerConfig): number {
  const { port } = config.websocket;
  if (typeof port === 'number') return port;
  return config.port === 0 ? 0 : config.port + 1;
}
