import type { AddressInfo } from 'node:net';
import type { Rpc } from '@rollup-router/core';
import { mountPrefix } from '@rollup-router/core/internal';
import { redactRedisUrl } from '@rollup-router/signature-statuses';
import type { Logger } from 'pino';
import type { ServerPlugins } from './build-plugins.js';
import type { ServerConfig } from './config/server-config.js';
import { httpUrl, wsUrl, type Listeners } from './listeners.js';

/** The `listening` line: where, what is served, and what was loaded (nothing secret). */
export function logListening(
  config: ServerConfig,
  { server, metricsServer, socketServer }: Listeners,
  rpc: Rpc,
  plugins: ServerPlugins,
  log: Logger,
): { rpc: string; metrics: string | undefined } {
  const address = server.address() as AddressInfo;
  const mount = mountPrefix(config.endpoints.mountPath);
  const url = httpUrl(server, `${mount}/`);
  const metrics = metricsServer ? httpUrl(metricsServer, '/metrics') : undefined;
  const socketListener = socketServer && wsUrl(socketServer, '/');
  const nodes = plugins.routes.registry.nodes();
  log.info(
    {
      url,
      host: address.address,
      port: address.port,
      endpoints: {
        root: config.endpoints.root ? `POST ${mount}/` : false,
        pathStyle: config.endpoints.pathStyle ? `POST ${mount}/<method>` : false,
        metrics: config.metrics.enabled ? (metrics ?? 'GET /metrics') : false,
        websocket: wsUrl(server, `${mount}/`),
        websocketListener: socketListener ?? false,
      },
      methods: rpc.methodNames,
      routes: {
        file: config.routes.file ?? null,
        inline: config.routes.routes?.length ?? 0,
        nodes: nodes.length,
      },
      store: config.statuses.store === false ? false : config.statuses.store.path,
      upstreams: plugins.statuses.upstreamNames,
      redis: config.redis ? redactRedisUrl(config.redis.url) : false,
      apiKeyCount: config.apiKeys.length,
      rateLimit: config.rateLimit,
      trustProxy: config.trustProxy,
    },
    socketListener ? `listening on ${url} (WebSocket only on ${socketListener})` : `listening on ${url}`,
  );
  return { rpc: url, metrics };
}
