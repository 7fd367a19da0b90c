import type { NodeStatus, RouteRegistry } from '@rollup-router/routes';
import { erUpstream, type Upstream } from './upstream.js';

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
    private readonly registry: RouteRegistry,
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

  private isVetted(node: NodeStatus): boolean {
    return this.allow === undefined ? !node.fromChain : this.allow.has(node.entry.identity);
  }

  private upstreamOf(node: NodeStatus): Upstream {
    return erUpstream(node.entry.identity, node.entry.fqdn, this.isVetted(node), node.addressGuard);
  }
}

const faster = (a: number | undefined, b: number | undefined): boolean =>
  a !== undefined && (b === undefined || a < b);
