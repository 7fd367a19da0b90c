// What the server tells operators: the metrics it exports and what feeds them, and /ready.
import type { ProviderState, Rpc, WebSocketTransport } from '@rollup-router/core';
import { BASE_CHAIN_NAME } from '@rollup-router/delegation-router';
import type { Logger } from 'pino';
import { statusUpstreams, type ServerPlugins } from './build-plugins.js';
import type { ServerConfig } from './config/server-config.js';
import type { RequestTracker } from './http/request-tracker.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { version as packageVersion } from './paths.js';
import { readinessReport, type ReadinessReport } from './readiness/readiness.js';
import { UpstreamWatch } from './readiness/upstream-watch.js';
import type { SharedRedis } from './redis/shared-redis.js';
import type { StartServerOptions } from './server.js';

export function observeInto(
  metrics: ServerMetrics,
  rpc: Rpc,
  plugins: ServerPlugins,
  redis: SharedRedis | undefined,
): void {
  rpc.onCall(metrics.observeCall);
  rpc.onKeyCharge(metrics.observeKeyCharge);
  plugins.statuses.signatureWatch.onRound(metrics.observePollRound);
  if (redis) metrics.watchRedis(redis.link);
  const { delegation } = plugins;
  if (delegation)
    metrics.watchDelegationRouter({
      relayCounts: () => delegation.relayCounts(),
      followedRecords: () => delegation.routing.source.followed,
    });
  metrics.watchProviders(() => [
    ...healthOf(BASE_CHAIN_NAME, delegation?.baseChainProviders?.states()),
    ...healthOf(CHAIN_REGISTRY_NAME, plugins.routes.registry.chainProviders()),
  ]);
}

/**
 * Whose provider set the route registry's is, in the provider gauge (`chain-registry:<name>`):
 * it keeps its own view of routes.chain's providers, apart from the delegation router's
 * (`base-chain:<name>`), even when both come from one list.
 */
const CHAIN_REGISTRY_NAME = 'chain-registry';

const healthOf = (set: string, states: readonly ProviderState[] | undefined) =>
  (states ?? []).map((p) => ({ upstream: `${set}:${p.name}`, healthy: p.health === 'healthy' }));

export interface LiveParts {
  readonly rpc: Rpc;
  readonly plugins: ServerPlugins;
  readonly sockets: WebSocketTransport;
  readonly ready: () => ReadinessReport;
}

export function metricsOf(
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

export function watchUpstreams(config: ServerConfig, log: Logger): UpstreamWatch {
  return new UpstreamWatch(
    {
      urls: statusUpstreams(config).map((u) => u.url),
      freshMs: config.readiness.upstreamFreshMs,
      probeIntervalMs: config.readiness.upstreamProbeIntervalMs,
      probeTimeoutMs: config.readiness.upstreamProbeTimeoutMs,
    },
    log.child({ part: 'readiness' }),
  );
}

export function readinessOf(
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
      baseChainProviders:
        plugins.delegation?.baseChainProviders && (() => plugins.delegation!.baseChainProviders!.states()),
      chainRegistryProviders: () => plugins.routes.registry.chainProviders(),
      redis: redis && (() => redis.link.describe()),
    });
}
