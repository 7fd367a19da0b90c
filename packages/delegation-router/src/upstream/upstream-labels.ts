import type { IdentityChoice } from './er-directory.js';
import { erName, type Upstream } from './upstream.js';

/** The label every ER the operator did not name shares in metrics and readiness. */
export const OTHER_ER_LABEL = 'er:other';

/**
 * The label of an upstream in metrics and readiness: the base chain's name (`base-chain`),
 * `er:<identity>` for an ER the operator named (identity.allow, identity.pin), and
 * `er:other` for any other ER, so that registering ERs cannot grow the series. Without an
 * allow-list or a pin, every ER of an operator's route table is named; those of the open
 * on-chain registry are not.
 */
export class UpstreamLabels {
  private readonly named: ReadonlySet<string> | 'all' | 'none';

  constructor(choice: IdentityChoice, openRegistry: boolean) {
    const { pin, allow } = choice;
    if (pin === undefined && allow === undefined) this.named = openRegistry ? 'none' : 'all';
    else this.named = new Set([...(allow ?? []), ...(pin === undefined ? [] : [pin])]);
  }

  of(upstream: Upstream): string {
    return upstream.identity === undefined ? upstream.name : this.ofEr(upstream.identity);
  }

  /** The label of the ER with this identity. */
  ofEr(identity: string): string {
    const named = this.named === 'all' || (this.named !== 'none' && this.named.has(identity));
    return named ? erName(identity) : OTHER_ER_LABEL;
  }
}
