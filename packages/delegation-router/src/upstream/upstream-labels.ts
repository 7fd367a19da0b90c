import type { IdentityChoice } from './er-directory.js';
import { erName, type Upstream } from './upstream.js';

/** The label every ER the operator did not name shares in metrics and readiness. */
export const OTHER_ER_LABEL = 'er:other';

/**
 * The label of an upstream in metrics and readiness: the base chain's name (`base-chain`),
 * `er:<identity>` for an ER the operator named, and `er:other` for any other ER, so that
 * registering ERs cannot grow the series. Named: those of identity.allow and the pinned
 * one; with neither, the ERs the operator listed (a routes file or list), not those of the
 * on-chain registry (as ErDirectory vets them).
 */
export class UpstreamLabels {
  private readonly named: ReadonlySet<string> | undefined;

  constructor(choice: IdentityChoice) {
    const { pin, allow } = choice;
    this.named =
      pin === undefined && allow === undefined
        ? undefined
        : new Set([...(allow ?? []), ...(pin === undefined ? [] : [pin])]);
  }

  of(upstream: Upstream): string {
    if (upstream.identity === undefined) return upstream.name;
    return this.label(upstream.identity, upstream.vetted);
  }

  /** The label of a node of the route table (its NodeStatus). */
  ofNode(node: { readonly entry: { readonly identity: string }; readonly fromChain: boolean }): string {
    return this.label(node.entry.identity, !node.fromChain);
  }

  private label(identity: string, listedByOperator: boolean): string {
    const named = this.named === undefined ? listedByOperator : this.named.has(identity);
    return named ? erName(identity) : OTHER_ER_LABEL;
  }
}
