import type { RouteTable } from '../upstream/er-directory.js';
import { erName, type Upstream } from '../upstream/upstream.js';
import type { UpstreamLabels } from '../upstream/upstream-labels.js';
import type { PubsubRelay } from './pubsub-relay.js';

/** What the relay holds, for metrics: read when asked (a scrape), never kept. */
export interface RelayCounts {
  /** Distinct subscriptions relayed (however many clients share each). */
  readonly relayed: number;
  /** Upstream subscriptions held per upstream socket, by upstream label (the base chain's always present). */
  readonly upstreamSubscriptions: ReadonlyMap<string, number>;
}

/**
 * The relay's counts by label. The relay opens sockets only to the base chain and to ERs of
 * the route table, so those are all there is to ask; ERs sharing a label are summed.
 */
export function relayCounts(
  relay: PubsubRelay,
  baseChain: Upstream,
  registry: RouteTable,
  labels: UpstreamLabels,
): RelayCounts {
  const counts = new Map([[labels.of(baseChain), relay.upstreamSubscriptions(baseChain.name)]]);
  const seen = new Set<string>();
  for (const node of registry.nodes()) {
    const { identity } = node.entry;
    if (seen.has(identity)) continue;
    seen.add(identity);
    const label = labels.ofNode(node);
    counts.set(label, (counts.get(label) ?? 0) + relay.upstreamSubscriptions(erName(identity)));
  }
  return { relayed: relay.size, upstreamSubscriptions: counts };
}
