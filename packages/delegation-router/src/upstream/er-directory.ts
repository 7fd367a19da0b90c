import type { RouteRegistry } from '@rollup-router/routes';
import { erUpstream, type Upstream } from './upstream.js';

export interface IdentityChoice {
  readonly pin?: string;
  readonly allow?: readonly string[];
}

/**
 * The ERs of the route table (the routes plugin's registry, file or chain), by identity.
 * Routing by delegation uses every registered ER, healthy or not: only the ER an account
 * is delegated to can take its transactions, so a down ER is an upstream error, not a
 * reason to send elsewhere. Recommending one (getIdentity) uses the available ones only.
 */
export class ErDirectory {
  private readonly allow: ReadonlySet<string> | undefined;

  constructor(
    private readonly registry: RouteRegistry,
    private readonly choice: IdentityChoice,
  ) {
    this.allow = choice.allow ? new Set(choice.allow) : undefined;
  }

  /** The ER with this identity, if the route table lists it. */
  byIdentity(identity: string): Upstream | undefined {
    const node = this.registry.nodes().find((n) => n.entry.identity === identity);
    return node && erUpstream(identity, node.entry.fqdn, node.addressGuard);
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
      return pinned && erUpstream(pinned.entry.identity, pinned.entry.fqdn, pinned.addressGuard);
    }
    const allowed = this.allow ? available.filter((n) => this.allow!.has(n.entry.identity)) : available;
    let best: (typeof allowed)[number] | undefined;
    for (const node of allowed) {
      if (best === undefined || faster(node.lastLatencyMs, best.lastLatencyMs)) best = node;
    }
    return best && erUpstream(best.entry.identity, best.entry.fqdn, best.addressGuard);
  }
}

const faster = (a: number | undefined, b: number | undefined): boolean =>
  a !== undefined && (b === undefined || a < b);
