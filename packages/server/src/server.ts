import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeListener, createRpc, redactUrl, type Plugin, type Rpc } from '@rollup-router/core';
import type { RouteListError } from '@rollup-router/routes';
import type { Logger } from 'pino';
import { buildPlugins, type ServerPlugins } from './build-plugins.js';
import { ConfigError } from './config/config-error.js';
import type { ServerConfig } from './config/server-config.js';
import { closeGracefully } from './http/close-gracefully.js';
import { createFallback } from './http/fallback.js';
import { RequestTracker } from './http/request-tracker.js';
import { SECURITY_HEADERS, withSecurityHeaders } from './http/security-headers.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { version as packageVersion } from './paths.js';
import { loadPlugins } from './plugins/load-plugins.js';
import { readinessReport, type ReadinessReport } from './readiness/readiness.js';
import { UpstreamWatch } from './readiness/upstream-watch.js';

export interface StartServerOptions {
  readonly logger: Logger;
  /** Reported by the rollup_router_info metric; default this package's version. */
  readonly version?: string;
  /**
   * Plugins of your own, served beside getRoutes and getSignatureStatuses (and after the
   * modules `config.plugins` names), with the same /health, /ready, /metrics and drain.
   */
  readonly plugins?: readonly Plugin[];
}

export interface RunningServer {
  /** Where the JSON-RPC root endpoint is, e.g. http://127.0.0.1:8080/. */
  readonly url: string;
  readonly host: string;
  /** The bound port (the real one when the config said 0). */
  readonly port: number;
  /** Where GET /metrics is served when `metrics.port` gives it a listener of its own. */
  readonly metricsUrl: string | undefined;
  readonly rpc: Rpc;
  readonly plugins: ServerPlugins;
  readonly http: Server;
  ready(): ReadinessReport;
  /** Reads the routes file again (SIGHUP); a bad file keeps the last good list and is returned. */
  reloadRoutes(): Promise<RouteListError[]>;
  /**
   * Graceful stop: new calls get 503 -32053 (Connection: close) and /ready 503 while the
   * calls under way finish, for up to `graceMs`, and for at least `shutdown.drainDelayMs`;
   * the port keeps listening meanwhile, so load balancers see the 503. Then the listener and every connection close and the
   * plugins stop (which closes the store). Calling it again returns the same promise.
   */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Loads the plugin modules of `config.plugins`, starts every plugin, then listens. A bad
 * plugin module or a method name served twice is a ConfigError. On a failure nothing is
 * left running.
 */
export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  const log = options.logger;
  const own = [...(await loadPlugins(config.plugins)), ...(options.plugins ?? [])];
  const tracker = new RequestTracker((status) => metrics?.observeResponse(status));
  const upstreams = watchUpstreams(config, log);
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
  const rpc = buildRpc(config, [plugins.routes, plugins.statuses, ...own], log);
  if (metrics) rpc.onCall(metrics.observeCall);

  const state = { started: false, draining: false };
  const ready = readinessOf(config, plugins, upstreams, state);
  const { server, metricsServer } = createListeners(config, rpc, tracker, ready, metrics, log);
  await rpc.start();
  state.started = true;
  await listenOrStop(config, server, metricsServer, rpc);
  upstreams.start();
  const url = logListening(config, server, metricsServer, rpc, plugins, log);

  let closing: Promise<void> | undefined;
  const shutdown = (graceMs = config.shutdown.graceMs): Promise<void> =>
    (closing ??= (async () => {
      state.draining = true;
      rpc.drain();
      log.info(
        { inflight: tracker.inflight, graceMs, drainDelayMs: config.shutdown.drainDelayMs },
        'shutting down: new calls get 503; waiting for calls under way',
      );
      await closeGracefully(server, tracker, { graceMs, drainDelayMs: config.shutdown.drainDelayMs }, log);
      if (metricsServer) await closeNow(metricsServer);
      upstreams.stop();
      await rpc.stop();
      log.info('stopped');
    })());

  const address = server.address() as AddressInfo;
  return {
    url: url.rpc,
    host: address.address,
    port: address.port,
    metricsUrl: url.metrics,
    rpc,
    plugins,
    http: server,
    ready,
    reloadRoutes: () => plugins.routes.registry.reload(),
    shutdown,
  };
}

function watchUpstreams(config: ServerConfig, log: Logger): UpstreamWatch {
  return new UpstreamWatch(
    {
      urls: config.statuses.upstreams?.map((u) => u.url) ?? [],
      freshMs: config.readiness.upstreamFreshMs,
      probeIntervalMs: config.readiness.upstreamProbeIntervalMs,
      probeTimeoutMs: config.readiness.upstreamProbeTimeoutMs,
    },
    log.child({ part: 'readiness' }),
  );
}

function readinessOf(
  config: ServerConfig,
  plugins: ServerPlugins,
  upstreams: UpstreamWatch,
  state: { readonly started: boolean; readonly draining: boolean },
): () => ReadinessReport {
  return () =>
    readinessReport({
      started: () => state.started,
      draining: () => state.draining,
      storeOpen: () => (config.statuses.store === false ? undefined : plugins.statuses.store?.open === true),
      nodes: () => {
        const nodes = plugins.routes.registry.nodes();
        return { registered: nodes.length, available: nodes.filter((n) => n.available).length };
      },
      routesProblem: () => {
        const routes = plugins.routes.registry.readiness();
        return routes.ready ? undefined : routes.reason;
      },
      upstreams,
    });
}

/**
 * The clients' listener (JSON-RPC, /health, /ready and, unless it has its own port,
 * /metrics) and, with `metrics.port`, the metrics listener. Neither listens yet.
 */
function createListeners(
  config: ServerConfig,
  rpc: Rpc,
  tracker: RequestTracker,
  ready: () => ReadinessReport,
  metrics: ServerMetrics | undefined,
  log: Logger,
): { server: Server; metricsServer: Server | undefined } {
  const scrape = metrics && ((): ReturnType<ServerMetrics['scrape']> => metrics.scrape());
  const separate = config.metrics.port !== undefined;
  const metricsToken = config.metrics.token;
  const onError = (err: unknown): void => log.error({ err }, 'fallback route failed');
  // RPC replies carry the security headers in their one writeHead; the fallback's get them set.
  const listener = createNodeListener(rpc, {
    ...config.endpoints,
    headers: SECURITY_HEADERS,
    fallback: withSecurityHeaders(
      createFallback({ ready, metrics: separate ? undefined : scrape, metricsToken, onError }),
    ),
  });
  const server = createServer(tracker.wrap(listener));
  const metricsServer =
    scrape && separate
      ? createServer(
          withSecurityHeaders(createFallback({ ready: undefined, metrics: scrape, metricsToken, onError })),
        )
      : undefined;
  return { server, metricsServer };
}

/** The core service over every plugin; two plugins serving one method name is a configuration mistake. */
function buildRpc(config: ServerConfig, plugins: Plugin[], log: Logger): Rpc {
  try {
    return createRpc({
      plugins,
      logger: log,
      limits: config.limits,
      cors: config.cors,
      apiKeys: config.apiKeys,
      rateLimit: config.rateLimit,
      validateResults: config.validateResults,
      discovery: config.discovery,
      info: config.info,
    });
  } catch (err) {
    throw new ConfigError(`invalid plugins: ${(err as Error).message}`);
  }
}

const httpUrl = (server: Server, path: string): string => {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${path}`;
};

/** The `listening` line: where, what is served, and what was loaded (nothing secret). */
function logListening(
  config: ServerConfig,
  server: Server,
  metricsServer: Server | undefined,
  rpc: Rpc,
  plugins: ServerPlugins,
  log: Logger,
): { rpc: string; metrics: string | undefined } {
  const address = server.address() as AddressInfo;
  const mount = config.endpoints.mountPath.replace(/\/+$/, '');
  const url = httpUrl(server, `${mount}/`);
  const metrics = metricsServer ? httpUrl(metricsServer, '/metrics') : undefined;
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
  return { rpc: url, metrics };
}

/** Binds the listeners; when one cannot (port in use), stops what started and rethrows. */
async function listenOrStop(
  config: ServerConfig,
  server: Server,
  metricsServer: Server | undefined,
  rpc: Rpc,
): Promise<void> {
  try {
    await listen(server, config.port, config.host);
    if (metricsServer) await listen(metricsServer, config.metrics.port!, config.metrics.host ?? config.host);
  } catch (err) {
    if (server.listening) server.close();
    await rpc.stop();
    throw err;
  }
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

/** The metrics listener has nothing to drain: a scrape cut short is simply retried. */
function closeNow(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
