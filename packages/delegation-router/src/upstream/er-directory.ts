import type { AddressGuard } from '@rollup-router/core';
import { erUpstream, type Upstream } from './upstream.js';

/** An ER as the route table lists it: what routing reads of the routes plugin's NodeStatus. */
export interface RouteNode {
  readonly entry: { readonly identity: string; readonly fqdn: string };
  readonly available: boolean;
  /** Round trip of its last successful health probe, in milliseconds. */
  readonly lastLatencyMs: number | undefined;
  /** Listed only by a registry anyone can write to (the chain): never vetted without an allow-list. */
  readonly fromChain: boolean;
  /** What every connection to its URL goes through (a chain node's). */
  readonly addressGuard: AddressGuard | undefined;
}

/** The route table the ERs come from: the routes plugin's RouteRegistry fits, as would an embedder's own. */
export interface RouteTable {
  nodes(): readonly RouteNode[];
  /** Optional: records the table could not list, counted by reason (the routes plugin's chain records). */
  refused?(): Readonly<Record<string, number>>;
}

/**
 * Why there is no ER to recommend (getIdentity's -32073 data): every node the table
 * could have offered was refused (counted by reason in `refused`), or some are listed
 * and accepted but none is available (or none is listed at all).
 */
export interface NoErReason {
  readonly reason: 'none_available' | 'all_refused';
  readonly refused: Readonly<Record<string, number>>;
}

/** The reason a listed node that the allow-list leaves out (available or not) is counted under. */
export const NOT_ALLOWED = 'not in delegation.identity.allow';

export interface IdentityChoice {
  readonly pin?: string;
  readonly allow?: readonly string[];
}

/** An ER of the route table, or why routing may not use it. */
export type ErLookup =
  | { readonly ok: true; readonly er: Upstream }
  | { readonly ok: false; readonly reason: 'not_listed' | 'not_allowed' };

/**
 * The ERs of the route table (the routes plugin's registry, file or chain), by identity,
 * and which of them this router trusts. With `identity.allow`, only those (and the pinned
 * one) are routed to or recommended, and they are vetted (their answers may decide things
 * for other clients): a record naming any other ER is refused, whatever the registry
 * lists. Without it, every node of the route table is routable, and vetted only when the
 * operator listed it (routes, file, an embedder's source), not when anyone could register
 * it on chain.
 *
 * Routing by delegation uses every routable ER, healthy or not: only the ER an account
 * is delegated to can take its transactions, so a down ER is an upstream error, not a
 * reason to send elsewhere. Recommending one (getIdentity) uses the available ones only.
 */
export class ErDirectory {
  private readonly allow: ReadonlySet<string> | undefined;

  constructor(
    private readonly registry: RouteTable,
    private readonly choice: IdentityChoice,
  ) {
    this.allow = choice.allow
      ? new Set([...choice.allow, ...(choice.pin === undefined ? [] : [choice.pin])])
      : undefined;
  }

  /** Whether routing is limited to an allow-list. */
  get restricted(): boolean {
    return this.allow !== undefined;
  }

  /** The ER with this identity when routing may use it, or why not. */
  lookup(identity: string): ErLookup {
    if (this.allow !== undefined && !this.allow.has(identity)) return { ok: false, reason: 'not_allowed' };
    const node = this.registry.nodes().find((n) => n.entry.identity === identity);
    if (node === undefined) return { ok: false, reason: 'not_listed' };
    return { ok: true, er: this.upstreamOf(node) };
  }

  /**
   * The vetted ERs of the route table (see the class comment), available or not: the ones
   * asked about a transaction the base chain does not know.
   */
  vetted(): Upstream[] {
    return this.registry
      .nodes()
      .filter((n) => this.isVetted(n))
      .map((n) => this.upstreamOf(n));
  }

  /**
   * The ER to recommend: the pinned one while available, otherwise the available ER
   * (among the allowed ones) whose last health probe answered fastest; nodes never
   * probed (health checking off) come after the measured ones, in registry order.
   */
  closest(): Upstream | undefined {
    const available = this.registry.nodes().filter((n) => n.available);
    if (this.choice.pin !== undefined) {
      const pinned = available.find((n) => n.entry.identity === this.choice.pin);
      return pinned && this.upstreamOf(pinned);
    }
    const allowed = this.allow ? available.filter((n) => this.allow!.has(n.entry.identity)) : available;
    let best: (typeof allowed)[number] | undefined;
    for (const node of allowed) {
      if (best === undefined || faster(node.lastLatencyMs, best.lastLatencyMs)) best = node;
    }
    return best && this.upstreamOf(best);
  }

  /** Why `closest()` has none: what the route table and the allow-list refused, by reason. */
  whyNone(): NoErReason {
    const nodes = this.registry.nodes();
    const refused: Record<string, number> = { ...this.registry.refused?.() };
    let accepted = 0;
    for (const node of nodes) {
      if (this.allow === undefined || this.allow.has(node.entry.identity)) accepted++;
      else refused[NOT_ALLOWED] = (refused[NOT_ALLOWED] ?? 0) + 1;
    }
    const refusedAny = Object.keys(refused).length > 0;
    return { reason: accepted === 0 && refusedAny ? 'all_refused' : 'none_available', refused };
  }

  private isVetted(node: RouteNode): boolean {
    return this.allow === undefined ? !node.fromChain : this.allow.has(node.entry.identity);
  }

  private upstreamOf(node: RouteNode): Upstream {
    return erUpstream(node.entry.identity, node.entry.fqdn, this.isVetted(node), node.addressGuard);
  }
}

const faster = (a: number | undefined, b: number | undefined): boolean =>
  a !== undefined && (b === undefined || a < b);
