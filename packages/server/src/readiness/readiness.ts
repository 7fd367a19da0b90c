import type { ProviderState } from '@rollup-router/core';
import type { UpstreamWatch } from './upstream-watch.js';

export interface ReadinessReport {
  readonly ready: boolean;
  /** One line per check, for people reading GET /ready. */
  readonly checks: Readonly<Record<string, string>>;
  /** Why not ready; empty when ready. */
  readonly reasons: readonly string[];
}

export interface ReadinessSources {
  /** The plugins started: the route registry is loaded, the store opened. */
  readonly started: () => boolean;
  readonly draining: () => boolean;
  /** undefined: no store configured. */
  readonly storeOpen: () => boolean | undefined;
  readonly nodes: () => { readonly registered: number; readonly available: number };
  /** Why the route registry cannot serve its full list yet (the chain registry not read once). */
  readonly routesProblem?: () => string | undefined;
  readonly upstreams: UpstreamWatch;
  /**
   * The delegation router's base-chain providers, when the operator listed several. Never a
   * reason, nor the next: every router shares them, so taking this one out helps no one.
   */
  readonly baseChainProviders?: () => readonly ProviderState[];
  /** The chain registry's providers (routes.chain.providers), as its own reads found them; undefined for one URL. */
  readonly chainRegistryProviders?: () => readonly ProviderState[] | undefined;
  /** The shared Redis, described; absent: none configured. Never a reason: Redis is a helper. */
  readonly redis?: () => string;
}

/**
 * GET /ready: whether a load balancer should send traffic here. Not while starting or
 * draining, not with the store closed, and not when upstreams are configured and none
 * has answered lately (every signature the store does not know would fail).
 */
export function readinessReport(s: ReadinessSources): ReadinessReport {
  const reasons: string[] = [];
  const checks: Record<string, string> = {};
  const started = s.started();
  if (!started) reasons.push('starting: plugins not started yet');
  if (s.draining()) reasons.push('shutting down');

  const store = s.storeOpen();
  checks.store = store === undefined ? 'none configured' : store ? 'open' : 'closed';
  if (store === false) reasons.push('the status store is not open');

  const nodes = s.nodes();
  checks.routes = started
    ? `loaded: ${nodes.available} of ${nodes.registered} nodes available`
    : 'not loaded';
  const routesProblem = started ? s.routesProblem?.() : undefined;
  if (routesProblem !== undefined) {
    checks.routes += `; ${routesProblem}`;
    reasons.push(routesProblem);
  }

  // Only with redis configured: without it, /ready says what it always said.
  const redis = s.redis?.();
  if (redis !== undefined) checks.redis = redis;

  const providers = s.baseChainProviders?.();
  if (providers !== undefined) checks.baseChainProviders = providers.map(describeProvider).join('; ');
  const registryProviders = s.chainRegistryProviders?.();
  if (registryProviders !== undefined)
    checks.chainRegistryProviders = registryProviders.map(describeProvider).join('; ');

  checks.upstreams = s.upstreams.describe();
  const upstream = s.upstreams.problem();
  if (upstream !== undefined) reasons.push(upstream);
  return { ready: reasons.length === 0, checks, reasons };
}

/** `<name>: healthy`, or `<name>: out, failing (HTTP 503)` / `out, lagging (80 behind the best)`. */
function describeProvider(p: ProviderState): string {
  return p.health === 'healthy'
    ? `${p.name}: healthy`
    : `${p.name}: out, ${p.health} (${p.reason ?? 'unknown'})`;
}
