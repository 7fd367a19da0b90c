import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Plugin,
  type RateBudget,
  type RateLimiterFactory,
  type Rpc,
  type WebSocketTransport,
} from '@rollup-router/core';
import type { RouteListError } from '@rollup-router/routes';
import type { Logger } from 'pino';
import { buildPlugins, builtInPlugins, type ServerPlugins } from './build-plugins.js';
import { buildRpc } from './build-rpc.js';
import type { Scrape } from './cluster/cluster-metrics.js';
import type { BudgetStore } from './cluster/cluster-rate-limit.js';
import type { ServerConfig } from './config/server-config.js';
import { RequestTracker } from './http/request-tracker.js';
import { attachSockets, createListeners, listenOrStop, wsUrl } from './listeners.js';
import { logListening } from './listening-log.js';
import { metricsOf, observeInto, readinessOf, watchUpstreams } from './metrics-and-readiness.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import { loadPlugins } from './plugins/load-plugins.js';
import type { ReadinessReport } from './readiness/readiness.js';
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
   * Graceful stop: first, for `shutdown.drainDelayMs`, /ready answers 503 while calls are still
   * answered (each response closing its connection), so a load balancer takes the instance out
   * before any call is refused. Then new calls get 503 -32053 (Connection: close) while the calls
   * under way finish, for up to `graceMs`, and sockets close with 1001. Then the listener and every connection close and the
   * plugins stop (which closes the store), then Redis. Each step is bounded and the store and Redis are closed
   * even when a step before them hangs or fails (the promise then rejects, after all ran), so it settles within
   * `shutdownBoundMs(graceMs, drainDelayMs)`. Calling it again returns the same promise.
   */
  shutdown(graceMs?: number): Promise<void>;
}

/** What a worker of `workers` leaves to its primary (cluster/worker.ts). */
export interface PrimaryLinks {
  /** Rate budgets kept in the primary, for all workers; Redis, when configured, keeps them instead. */
  readonly budgets: BudgetStore;
  /** Gives the primary this worker's metrics; returns the scrape of every worker. */
  readonly shareMetrics: (registry: ServerMetrics['registry']) => () => Promise<Scrape>;
}

/**
 * Loads the plugin modules of `config.plugins`, starts every plugin, then listens. A bad
 * plugin module or a method name served twice is a ConfigError. On a failure nothing is
 * left running. With `redis`, Redis is connected first (refused credentials are a
 * ConfigError); a Redis that is down only degrades sharing.
 */
export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  return startServerLinked(config, options, undefined);
}

/** startServer, as a worker of `workers` (`primary`) or on its own (undefined). */
export async function startServerLinked(
  config: ServerConfig,
  options: StartServerOptions,
  primary: PrimaryLinks | undefined,
): Promise<RunningServer> {
  const redis = config.redis
    ? await SharedRedis.connect(config.redis, options.logger.child({ part: 'redis' }))
    : undefined;
  try {
    return await startWith(config, options, redis, primary);
  } catch (err) {
    await redis?.close();
    throw err;
  }
}

async function startWith(
  config: ServerConfig,
  options: StartServerOptions,
  redis: SharedRedis | undefined,
  primary: PrimaryLinks | undefined,
): Promise<RunningServer> {
  const log = options.logger;
  const tracker = new RequestTracker((status) => metrics?.observeResponse(status));
  const upstreams = watchUpstreams(config, log);
  // Read at scrape time, after every part exists.
  const metrics = metricsOf(config, options, tracker, () => ({ rpc, plugins, sockets, ready }));
  const plugins = buildPlugins(config, metrics, upstreams, redis?.client);
  const own = [...(await loadPlugins(config.plugins, undefined, plugins)), ...(options.plugins ?? [])];
  const rpc = buildRpc(config, [...builtInPlugins(plugins), ...own], log, budgetsOf(redis, primary));
  if (metrics) observeInto(metrics, rpc, plugins, redis);

  const state = { started: false, draining: false };
  const ready = readinessOf(config, plugins, upstreams, state, redis);
  const scrape = metrics && (primary ? primary.shareMetrics(metrics.registry) : () => metrics.scrape());
  const listeners = createListeners(config, rpc, tracker, ready, scrape, log);
  const { server, metricsServer, socketServer } = listeners;
  const sockets = attachSockets(config, rpc, listeners);
  await rpc.start();
  state.started = true;
  await listenOrStop(config, server, metricsServer, rpc, socketServer);
  upstreams.start();
  const url = logListening(config, listeners, rpc, plugins, log);

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

/**
 * Where the rate budgets are kept: with Redis, one budget per client and per API key across
 * every instance (per instance while Redis is down: in the primary under `workers`); else,
 * under `workers`, one across the workers, in the primary; else in this process.
 */
function budgetsOf(
  redis: SharedRedis | undefined,
  primary: PrimaryLinks | undefined,
): RateLimiterFactory | undefined {
  if (redis)
    return (budget: RateBudget, keyPrefix: string) => redis.rateLimiter(budget, keyPrefix, primary?.budgets);
  return primary?.budgets;
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
