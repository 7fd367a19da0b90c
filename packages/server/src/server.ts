import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  attachWebSocket,
  createNodeListener,
  createRpc,
  type Plugin,
  type Rpc,
  type WebSocketTransport,
} from '@rollup-router/core';
import type { RouteListError } from '@rollup-router/routes';
import { redactRedisUrl } from '@rollup-router/signature-statuses';
import type { Logger } from 'pino';
import { buildPlugins, type ServerPlugins } from './build-plugins.js';
import { ConfigError } from './config/config-error.js';
import type { ServerConfig } from './config/server-config.js';
import { createFallback } from './http/fallback.js';
import { listenOn } from './http/listen-on.js';
import { RequestTracker } from './http/request-tracker.js';
import { SECURITY_HEADERS, withSecurityHeaders } from './http/security-headers.js';
import { websocketOnly } from './http/websocket-only.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { version as packageVersion } from './paths.js';
import { loadPlugins } from './plugins/load-plugins.js';
import { readinessReport, type ReadinessReport } from './readiness/readiness.js';
import { UpstreamWatch } from './readiness/upstream-watch.js';
import { SharedRedis } from './redis/shared-redis.js';
import { shutDown, type StopParts } from './shutdown.js';

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
  /** JSON-RPC over WebSocket on the second listener (`websocket.port`, default port + 1); undefined when it is off. */
  readonly websocketUrl: string | undefined;
  /** The sockets of both listeners (the upgrade on `port` and the second listener). */
  readonly websocket: WebSocketTransport;
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
   * plugins stop (which closes the store), then Redis. Each step is bounded and the store and Redis are closed
   * even when a step before them hangs or fails (the promise then rejects, after all ran), so it settles within
   * `shutdownBoundMs(graceMs, drainDelayMs)`. Calling it again returns the same promise.
   */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Loads the plugin modules of `config.plugins`, starts every plugin, then listens. A bad
 * plugin module or a method name served twice is a ConfigError. On a failure nothing is
 * left running. With `redis`, Redis is connected first (refused credentials are a
 * ConfigError); a Redis that is down only degrades sharing.
 */
export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  const redis = config.redis
    ? await SharedRedis.connect(config.redis, options.logger.child({ part: 'redis' }))
    : undefined;
  try {
    return await startWith(config, options, redis);
  } catch (err) {
    await redis?.close();
    throw err;
  }
}

async function startWith(
  config: ServerConfig,
  options: StartServerOptions,
  redis: SharedRedis | undefined,
): Promise<RunningServer> {
  const log = options.logger;
  const tracker = new RequestTracker((status) => metrics?.observeResponse(status));
  const upstreams = watchUpstreams(config, log);
  // Read at scrape time, after every part exists.
  const metrics = metricsOf(config, options, tracker, () => ({ rpc, plugins, sockets, ready }));
  const plugins = buildPlugins(config, metrics, upstreams, redis?.client);
  const own = [...(await loadPlugins(config.plugins, undefined, plugins)), ...(options.plugins ?? [])];
  const rpc = buildRpc(config, [plugins.routes, plugins.statuses, ...own], log, redis);
  if (metrics) observeInto(metrics, rpc, plugins, redis);

  const state = { started: false, draining: false };
  const ready = readinessOf(config, plugins, upstreams, state, redis);
  const { server, metricsServer, socketServer } = createListeners(config, rpc, tracker, ready, metrics, log);
  const sockets = attachWebSocket(server, rpc, { path: config.endpoints.mountPath });
  if (socketServer) sockets.attach(socketServer);
  await rpc.start();
  state.started = true;
  await listenOrStop(config, server, metricsServer, rpc, socketServer);
  upstreams.start();
  const url = logListening(config, { server, metricsServer, socketServer }, rpc, plugins, log);

  const shutdown = shutdownOf(config, {
    log,
    rpc,
    tracker,
    upstreams,
    state,
    server,
    metricsServer,
    socketServer,
    sockets,
    redis,
    store: () => plugins.statuses.store,
  });

  const address = server.address() as AddressInfo;
  return {
    url: url.rpc,
    host: address.address,
    port: address.port,
    metricsUrl: url.metrics,
    websocketUrl: socketServer && wsUrl(socketServer, '/'),
    websocket: sockets,
    rpc,
    plugins,
    http: server,
    ready,
    reloadRoutes: () => plugins.routes.registry.reload(),
    shutdown,
  };
}

/** The graceful stop of RunningServer.shutdown: the same promise however often it is called. */
function shutdownOf(
  config: ServerConfig,
  parts: Omit<StopParts, 'drainDelayMs'>,
): (graceMs?: number) => Promise<void> {
  let closing: Promise<void> | undefined;
  return (graceMs = config.shutdown.graceMs): Promise<void> =>
    (closing ??= shutDown({ ...parts, drainDelayMs: config.shutdown.drainDelayMs }, graceMs));
}

function observeInto(
  metrics: ServerMetrics,
  rpc: Rpc,
  plugins: ServerPlugins,
  redis: SharedRedis | undefined,
): void {
  rpc.onCall(metrics.observeCall);
  plugins.statuses.signatureWatch.onRound(metrics.observePollRound);
  if (redis) metrics.watchRedis(redis.link);
}

interface LiveParts {
  readonly rpc: Rpc;
  readonly plugins: ServerPlugins;
  readonly sockets: WebSocketTransport;
  readonly ready: () => ReadinessReport;
}

function metricsOf(
  config: ServerConfig,
  options: StartServerOptions,
  tracker: RequestTracker,
  live: () => LiveParts,
): ServerMetrics | undefined {
  if (!config.metrics.enabled) return undefined;
  return new ServerMetrics({
    processMetrics: config.metrics.processMetrics,
    version: options.version ?? packageVersion,
    methods: () => live().rpc.methodNames,
    nodes: () => live().plugins.routes.registry.nodes(),
    inflight: () => tracker.inflight,
    sockets: () => {
      const { rpc, plugins, sockets } = live();
      return {
        connections: sockets.connectionCount,
        subscriptions: rpc.subscriptions.active,
        pendingSignatures: plugins.statuses.signatureWatch.pending,
      };
    },
    ready: () => live().ready().ready,
  });
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
  redis: SharedRedis | undefined,
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
      redis: redis && (() => redis.link.describe()),
    });
}

interface Listeners {
  readonly server: Server;
  readonly metricsServer: Server | undefined;
  readonly socketServer: Server | undefined;
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
): Listeners {
  const scrape = metrics && ((): ReturnType<ServerMetrics['scrape']> => metrics.scrape());
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
  const mount = config.endpoints.mountPath.replace(/\/+$/, '');
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

/** The core service over every plugin; two plugins serving one method name is a configuration mistake. */
function buildRpc(config: ServerConfig, plugins: Plugin[], log: Logger, redis: SharedRedis | undefined): Rpc {
  try {
    return createRpc({
      plugins,
      logger: log,
      limits: config.limits,
      websocket: config.websocket.limits,
      callLog: config.callLog,
      cors: config.cors,
      apiKeys: config.apiKeys,
      rateLimit: config.rateLimit,
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
      // With Redis, one budget per client across every instance (per instance while Redis is down).
      rateLimiter: redis?.rateLimiter(config.rateLimit),
      validateResults: config.validateResults,
      discovery: config.discovery,
      info: config.info,
    });
  } catch (err) {
    throw new ConfigError(`invalid plugins: ${(err as Error).message}`);
  }
}

const urlOf = (scheme: string, server: Server, path: string): string => {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}${path}`;
};
const httpUrl = (server: Server, path: string): string => urlOf('http', server, path);
const wsUrl = (server: Server, path: string): string => urlOf('ws', server, path);

/** The `listening` line: where, what is served, and what was loaded (nothing secret). */
function logListening(
  config: ServerConfig,
  { server, metricsServer, socketServer }: Listeners,
  rpc: Rpc,
  plugins: ServerPlugins,
  log: Logger,
): { rpc: string; metrics: string | undefined } {
  const address = server.address() as AddressInfo;
  const mount = config.endpoints.mountPath.replace(/\/+$/, '');
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

/** Binds the listeners; when one cannot (port in use), stops what started and rethrows. */
async function listenOrStop(
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
