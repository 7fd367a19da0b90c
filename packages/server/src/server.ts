import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeListener, createRpc, redactUrl, type Rpc } from '@rollup-router/core';
import type { RouteListError } from '@rollup-router/routes';
import type { Logger } from 'pino';
import { buildPlugins, type ServerPlugins } from './build-plugins.js';
import type { ServerConfig } from './config/server-config.js';
import { closeGracefully } from './http/close-gracefully.js';
import { createFallback } from './http/fallback.js';
import { RequestTracker } from './http/request-tracker.js';
import { withSecurityHeaders } from './http/security-headers.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { version as packageVersion } from './paths.js';
import { readinessReport, type ReadinessReport } from './readiness/readiness.js';
import { UpstreamWatch } from './readiness/upstream-watch.js';

export interface StartServerOptions {
  readonly logger: Logger;
  /** Reported by the rollup_router_info metric; default this package's version. */
  readonly version?: string;
}

export interface RunningServer {
  /** Where the JSON-RPC root endpoint is, e.g. http://127.0.0.1:8080/. */
  readonly url: string;
  readonly host: string;
  /** The bound port (the real one when the config said 0). */
  readonly port: number;
  readonly rpc: Rpc;
  readonly plugins: ServerPlugins;
  readonly http: Server;
  ready(): ReadinessReport;
  /** Reads the routes file again (SIGHUP); a bad file keeps the last good list and is returned. */
  reloadRoutes(): Promise<RouteListError[]>;
  /**
   * Graceful stop: refuse new calls (503 -32053, Connection: close), let calls under way
   * finish for up to `graceMs`, close every connection, then stop the plugins (which
   * closes the store). Calling it again returns the same promise.
   */
  shutdown(graceMs?: number): Promise<void>;
}

/** Starts the plugins, then listens. On a failure nothing is left running. */
export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  const log = options.logger;
  const tracker = new RequestTracker((status) => metrics?.observeResponse(status));
  const upstreams = new UpstreamWatch(
    {
      urls: config.statuses.upstreams?.map((u) => u.url) ?? [],
      freshMs: config.readiness.upstreamFreshMs,
      probeIntervalMs: config.readiness.upstreamProbeIntervalMs,
      probeTimeoutMs: config.readiness.upstreamProbeTimeoutMs,
    },
    log.child({ part: 'readiness' }),
  );
  // The closures read `rpc` and `plugins` at call time, after both exist.
  const metrics = config.metrics.enabled
    ? new ServerMetrics({
        processMetrics: config.metrics.processMetrics,
        version: options.version ?? packageVersion,
        methods: () => rpc.methodNames,
        nodes: () => plugins.routes.registry.nodes(),
        inflight: () => tracker.inflight,
      })
    : undefined;
  const plugins = buildPlugins(config, metrics, upstreams);
  const rpc = createRpc({
    plugins: [plugins.routes, plugins.statuses],
    logger: log,
    limits: config.limits,
    cors: config.cors,
    apiKeys: config.apiKeys,
    rateLimit: config.rateLimit,
    validateResults: config.validateResults,
    discovery: config.discovery,
    info: config.info,
  });
  if (metrics) rpc.onCall(metrics.observeCall);

  let started = false;
  let draining = false;
  const ready = (): ReadinessReport =>
    readinessReport({
      started: () => started,
      draining: () => draining,
      storeOpen: () => (config.statuses.store === false ? undefined : plugins.statuses.store?.open === true),
      nodes: () => {
        const nodes = plugins.routes.registry.nodes();
        return { registered: nodes.length, available: nodes.filter((n) => n.available).length };
      },
      upstreams,
    });

  const listener = createNodeListener(rpc, {
    ...config.endpoints,
    fallback: createFallback({
      ready,
      metrics: metrics && (() => metrics.scrape()),
      onError: (err) => log.error({ err }, 'fallback route failed'),
    }),
  });
  const server = createServer(tracker.wrap(withSecurityHeaders(listener)));

  await rpc.start();
  started = true;
  try {
    await listen(server, config.port, config.host);
  } catch (err) {
    await rpc.stop();
    throw err;
  }
  upstreams.start();

  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const mount = config.endpoints.mountPath.replace(/\/+$/, '');
  const url = `http://${hostForUrl}:${address.port}${mount}/`;
  const nodes = plugins.routes.registry.nodes();
  log.info(
    {
      url,
      host: address.address,
      port: address.port,
      endpoints: {
        root: config.endpoints.root ? `POST ${mount}/` : false,
        pathStyle: config.endpoints.pathStyle ? `POST ${mount}/<method>` : false,
      },
      methods: rpc.methodNames,
      routes: {
        file: config.routes.file ?? null,
        inline: config.routes.routes?.length ?? 0,
        nodes: nodes.length,
      },
      store: config.statuses.store === false ? false : config.statuses.store.path,
      upstreams: (config.statuses.upstreams ?? []).map((u) => redactUrl(u.url)),
      apiKeyCount: config.apiKeys.length,
      rateLimit: config.rateLimit,
    },
    `listening on ${url}`,
  );

  let closing: Promise<void> | undefined;
  const shutdown = (graceMs = config.shutdown.graceMs): Promise<void> =>
    (closing ??= (async () => {
      draining = true;
      rpc.drain();
      log.info(
        { inflight: tracker.inflight, graceMs },
        'shutting down: no new calls; waiting for calls under way',
      );
      await closeGracefully(server, tracker, graceMs, log);
      upstreams.stop();
      await rpc.stop();
      log.info('stopped');
    })());

  return {
    url,
    host: address.address,
    port: address.port,
    rpc,
    plugins,
    http: server,
    ready,
    reloadRoutes: () => plugins.routes.registry.reload(),
    shutdown,
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
