import type { AddressGuard } from '@rollup-router/core';
import type { ProbeFailureKind, ProbeOutcome } from './health/probe.js';
import type { RouteEntry } from './generated/schemas.js';

/**
 * `unchecked`: health checking is off, the node is listed. `pending`: not probed yet.
 * `up`: answering (or failed fewer than `unhealthyAfter` times in a row since it last was).
 * `down`: not listed until a probe succeeds.
 */
export type NodeHealth = 'unchecked' | 'pending' | 'up' | 'down';

/** A node as the registry sees it: for dashboards, metrics and upstream selection. */
export interface NodeStatus extends NodeOrigin {
  readonly entry: RouteEntry;
  readonly available: boolean;
  readonly health: NodeHealth;
  readonly consecutiveFailures: number;
  /** Round trip of the last successful probe, in milliseconds. */
  readonly lastLatencyMs: number | undefined;
  /** When the last probe finished (epoch ms). */
  readonly lastProbeAt: number | undefined;
  /** Why the last probe failed; cleared by a success. */
  readonly lastError: string | undefined;
}

/** Where a node comes from, and so how far its URL is trusted. */
export interface NodeOrigin {
  /** Listed by the on-chain registry (anyone can register), not by the operator. */
  readonly fromChain: boolean;
  /**
   * What every call to the node's URL goes through: for a chain node, a guard refusing
   * loopback, private and link-local addresses unless routes.chain.allowPrivateAddresses;
   * undefined for the operator's nodes, which are trusted.
   */
  readonly addressGuard: AddressGuard | undefined;
}

/** What one probe did: every probe is reported to `onProbe` observers. */
export interface ProbeReport {
  readonly identity: string;
  readonly fqdn: string;
  readonly ok: boolean;
  /** Time until the answer or the failure, in milliseconds. */
  readonly latencyMs: number;
  readonly failure: { readonly kind: ProbeFailureKind; readonly message: string } | undefined;
  /** Whether the node is listed after this probe. */
  readonly available: boolean;
  /** Whether this probe changed that. */
  readonly changed: boolean;
}

export const isAvailable = (health: NodeHealth): boolean => health === 'unchecked' || health === 'up';

export function initialStatus(entry: RouteEntry, checked: boolean, origin: NodeOrigin): NodeStatus {
  const health: NodeHealth = checked ? 'pending' : 'unchecked';
  return {
    entry,
    fromChain: origin.fromChain,
    addressGuard: origin.addressGuard,
    health,
    available: isAvailable(health),
    consecutiveFailures: 0,
    lastLatencyMs: undefined,
    lastProbeAt: undefined,
    lastError: undefined,
  };
}

/**
 * The availability rule: one success lists a node; `unhealthyAfter` failures in a row
 * unlist a listed one; a node never seen answering stays unlisted.
 */
export function afterProbe(
  status: NodeStatus,
  outcome: ProbeOutcome,
  unhealthyAfter: number,
  now: number,
): NodeStatus {
  if (outcome.ok) {
    return {
      ...status,
      health: 'up',
      available: true,
      consecutiveFailures: 0,
      lastLatencyMs: outcome.latencyMs,
      lastProbeAt: now,
      lastError: undefined,
    };
  }
  const consecutiveFailures = status.consecutiveFailures + 1;
  const health: NodeHealth = status.health === 'up' && consecutiveFailures < unhealthyAfter ? 'up' : 'down';
  return {
    ...status,
    health,
    available: isAvailable(health),
    consecutiveFailures,
    lastProbeAt: now,
    lastError: `${outcome.kind}: ${outcome.message}`,
  };
}
