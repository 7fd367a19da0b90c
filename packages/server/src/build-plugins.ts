import {
  BASE_CHAIN_NAME,
  delegationRouterPlugin,
  UpstreamLabels,
  type DelegationRouterPlugin,
} from '@rollup-router/delegation-router';
import { routesPlugin, type RouteEntry, type RoutesOptions, type RoutesPlugin } from '@rollup-router/routes';
import {
  signatureStatusesPlugin,
  type GuardedUpstream,
  type ProvidedUpstream,
  type RedisClientLike,
  type SignatureStatusesPlugin,
} from '@rollup-router/signature-statuses';
import type { Plugin, UpstreamCallObserver } from '@rollup-router/core';
import { ConfigError } from './config/config-error.js';
import type { ServerConfig } from './config/server-config.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import type { UpstreamWatch } from './readiness/upstream-watch.js';

export interface ServerPlugins {
  readonly routes: RoutesPlugin;
  readonly statuses: SignatureStatusesPlugin;
  /** Served when a base chain is known (delegation.baseChain, or routes.chain). */
  readonly delegation: DelegationRouterPlugin | undefined;
}

/** The server's own plugins, in the order they are mounted. */
export function builtInPlugins(plugins: ServerPlugins): Plugin[] {
  return [plugins.routes, plugins.statuses, ...(plugins.delegation ? [plugins.delegation] : [])];
}

/**
 * The two method plugins from the config, wired to the server's observers: upstream
 * outcomes feed metrics and readiness, lookups feed the cache-hit metrics, probes the
 * node metrics. With statusesFromRoutes, the nodes getRoutes lists are asked too (the
 * plugin serves their answers but never keeps or trusts them over a configured upstream's). With
 * `redis`, statuses and affinity are shared over the server's connection.
 */
export function buildPlugins(
  config: ServerConfig,
  metrics: ServerMetrics | undefined,
  upstreams: UpstreamWatch,
  redis?: RedisClientLike,
): ServerPlugins {
  const routes = routesPlugin(routesOptions(config.routes));
  if (metrics) {
    routes.registry.onProbe(metrics.observeProbe);
    routes.registry.onChainRecords(metrics.observeChainRecords);
  }
  const observeUpstream = observeUpstreamCalls(metrics, upstreams);
  // The delegation router is built before the statuses plugin, whose base-chain upstream is
  // its provider set; what it sends is tracked by the statuses plugin, bound below once both
  // exist (nothing is sent before the server starts).
  let trackSent = (_signature: string, _url: string): boolean => false;
  const delegation = delegationOf(
    config,
    routes,
    (signature, url) => trackSent(signature, url),
    redis,
    observeUpstream,
  );
  const statuses = signatureStatusesPlugin({
    ...config.statuses,
    upstreams: statusUpstreams(config),
    upstreamProviders: baseChainProvidersOf(delegation),
    redis: redis && config.redis && { ...sharedStatusOptions(config.redis), client: redis },
    // Asked only for what no configured upstream knows, served, never kept: the route
    // table's nodes with statusesFromRoutes, and the delegation router's vetted ERs (a
    // transaction an app sent straight to its ER is not the base chain's to know).
    extraUpstreams: extraStatusUpstreams(config, routes, delegation),
    onUpstreamCall: observeUpstream,
    onLookup: metrics ? (layer, count) => metrics.observeLookup(layer, count) : undefined,
  });
  trackSent = (signature, url) => statuses.track(signature, url);
  // Readiness probes the configured upstreams itself: under the names the plugin reports.
  upstreams.useNames(
    statuses.options.upstreams.map(({ url }, i) => {
      const name = statuses.upstreamNames[i]!;
      return { url, name, providers: name === BASE_CHAIN_NAME ? delegation?.baseChainProviders : undefined };
    }),
  );
  if (metrics) statuses.signatureWatch.onRefused(metrics.observeRefusedSubscribe);
  return { routes, statuses, delegation };
}

/**
 * The extra statuses upstreams: the nodes getRoutes lists (statusesFromRoutes) and the
 * delegation router's vetted ERs, each with the guard its URL is called through (a chain
 * node's) and under its ER label, the one the delegation router reports its own calls to
 * that ER under: `er:<identity>`, or `er:other` for an ER the operator did not name
 * (bounded, whoever registers).
 */
function extraStatusUpstreams(
  config: ServerConfig,
  routes: RoutesPlugin,
  delegation: DelegationRouterPlugin | undefined,
): () => GuardedUpstream[] {
  const labels = new UpstreamLabels(config.delegation.identity ?? {});
  return () => [
    ...(config.statusesFromRoutes
      ? routes.registry
          .nodes()
          .filter((n) => n.available)
          .map((n) => ({ url: n.entry.fqdn, addressGuard: n.addressGuard, label: labels.ofNode(n) }))
      : []),
    ...(delegation?.routing.ers
      .vetted()
      .map((er) => ({ url: er.url, addressGuard: er.addressGuard, label: labels.of(er) })) ?? []),
  ];
}

/**
 * Every plugin's onUpstreamCall: one label scheme (see UpstreamLabels and upstreamNames),
 * so a call is one series in metrics and evidence for readiness whoever made it.
 */
const observeUpstreamCalls =
  (metrics: ServerMetrics | undefined, upstreams: UpstreamWatch): UpstreamCallObserver =>
  (upstream, outcome, ms) => {
    upstreams.record(upstream, outcome);
    metrics?.observeUpstream(upstream, outcome, ms);
  };

/**
 * The delegation router over the route table, with its base chain from its own section
 * or else from routes.chain: one setting for the on-chain registry and the delegation
 * records. With Redis, the instances share what they read of delegations. A transaction
 * sent to one of statuses.upstreams is tracked by the statuses plugin (`track`), so its
 * status and subscription ask that upstream first; track() refuses any other upstream,
 * since only the configured ones are trusted for statuses.
 */
function delegationOf(
  config: ServerConfig,
  routes: RoutesPlugin,
  track: (signature: string, url: string) => boolean,
  redis: RedisClientLike | undefined,
  onUpstreamCall: UpstreamCallObserver,
): DelegationRouterPlugin | undefined {
  const { baseChain: _base, ...rest } = config.delegation;
  const base = baseChainOf(config);
  if (!base) return undefined;
  return delegationRouterPlugin({
    ...rest,
    baseChain: base,
    registry: routes.registry,
    openRegistry: config.routes.chain !== undefined,
    redis: config.redis ? redis : undefined,
    onSent: (signature, upstream) => track(signature, upstream.url),
    onUpstreamCall,
  });
}

/**
 * The base chain the delegation router uses: its own section's, or else routes.chain's, its
 * one URL or its providers with their tuning (one list serves both): the keys of
 * schemas/chain-cluster.schema.json, which both sections share, and the commitment.
 */
function baseChainOf(config: ServerConfig) {
  const chain = config.routes.chain;
  if (config.delegation.baseChain !== undefined || chain === undefined) return config.delegation.baseChain;
  const { url, wsUrl, providers, commitment, maxSlotLag, probeIntervalMs, maxProbeIntervalMs, hedgeAfterMs } =
    chain;
  const shared = {
    url,
    wsUrl,
    providers,
    commitment,
    maxSlotLag,
    probeIntervalMs,
    maxProbeIntervalMs,
    hedgeAfterMs,
  };
  // The delegation router's options are checked by its schema, where a key present as undefined is not absent.
  return Object.fromEntries(Object.entries(shared).filter(([, v]) => v !== undefined)) as typeof shared;
}

/**
 * The statuses plugin's base-chain upstream as the delegation router's provider set, when
 * the operator listed several providers: one set, so one view of their health, and each
 * provider's headers and credentials on the statuses' calls too.
 */
function baseChainProvidersOf(
  delegation: DelegationRouterPlugin | undefined,
): Record<string, ProvidedUpstream> | undefined {
  const providers = delegation?.baseChainProviders;
  return providers && { [BASE_CHAIN_NAME]: { providers, wsUrl: delegation!.baseChainWsUrl } };
}

/**
 * The upstreams asked for statuses: the configured ones, then the base chain when the
 * delegation router sends transactions there. The operator configured it, so it is trusted
 * like them: the statuses of the transactions sent to it are asked of it first (track), and
 * answered through us. It is `base-chain` in both plugins' reports (one label scheme): a
 * configured upstream at its URL without a name takes that name, and one named otherwise
 * is refused, since its calls would show under two names.
 */
export function statusUpstreams(config: ServerConfig): NonNullable<ServerConfig['statuses']['upstreams']> {
  const configured = config.statuses.upstreams ?? [];
  const chain = baseChainOf(config);
  // With several providers, the first one's URL stands for the set: calls go through the
  // set (baseChainProvidersOf), and a transaction the delegation router sent is tracked by it.
  const url =
    chain === undefined
      ? undefined
      : (chain.url ?? ('providers' in chain ? chain.providers?.[0]?.url : undefined));
  if (url === undefined) return configured;
  const at = configured.findIndex((u) => u.url === url);
  if (at === -1) return [...configured, { url, name: BASE_CHAIN_NAME }];
  const { name } = configured[at]!;
  if (name !== undefined && name !== BASE_CHAIN_NAME)
    throw new ConfigError(
      `invalid config: /statuses/upstreams/${at} is the delegation router's base chain: leave its name out or name it ${BASE_CHAIN_NAME}, the base chain's label in metrics and /ready`,
    );
  return configured.map((u, i) => (i === at ? { ...u, name: BASE_CHAIN_NAME } : u));
}

/** What the statuses plugin takes of the server's redis section (the server owns the connection). */
const sharedStatusOptions = ({
  statusTtlSeconds,
  affinityTtlSeconds,
}: NonNullable<ServerConfig['redis']>) => ({
  statusTtlSeconds,
  affinityTtlSeconds,
});

/** The routes section as the plugin takes it: inline entries are checked by the plugin when it starts. */
export function routesOptions(section: ServerConfig['routes']): RoutesOptions {
  return { ...section, routes: section.routes as RouteEntry[] | undefined };
}
