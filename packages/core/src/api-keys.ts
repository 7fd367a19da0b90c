import { bearerToken } from './bearer-token.js';
import type { CoreOptionsResolved } from './generated/schemas.js';
import type { RateBudget, RateLimit } from './rate-limit.js';
import { SecretMatch } from './secret-match.js';

/** One `apiKeys` entry: a plain key, or a named key with a budget of its own. */
export type ApiKeyEntry = CoreOptionsResolved['apiKeys'][number];

/** A configured key as the admission step knows it: its name (never the key) and its own budget. */
export interface KeyAccount {
  /** What metrics call the key; undefined for a key given as a plain string. */
  readonly name: string | undefined;
  /** The key's own budget; undefined when its calls are charged to their client address's. */
  readonly budget: RateLimit | undefined;
}

const PLAIN: KeyAccount = { name: undefined, budget: undefined };

/**
 * API keys as Solana RPC providers take them: `Authorization: Bearer KEY` or
 * `?api-key=KEY`, checked in constant time (SecretMatch).
 */
export class ApiKeys {
  private readonly keys: SecretMatch;
  private readonly accounts: readonly KeyAccount[];

  /** `budgetOf` makes a named key's own budget; names and keys must be unique. */
  constructor(entries: readonly ApiKeyEntry[], budgetOf: (budget: RateBudget) => RateLimit) {
    refuseDuplicates(entries);
    this.keys = new SecretMatch(entries.map((e) => (typeof e === 'string' ? e : e.key)));
    this.accounts = entries.map((e) =>
      typeof e === 'string'
        ? PLAIN
        : { name: e.name, budget: e.rateLimit === undefined ? undefined : budgetOf(e.rateLimit) },
    );
  }

  get enabled(): boolean {
    return this.keys.size > 0;
  }

  /** The account of the key presented, or undefined when none or an unknown one is. */
  accountOf(authorization: string | undefined, query: string): KeyAccount | undefined {
    const fromHeader = bearerToken(authorization);
    if (fromHeader !== undefined) return this.find(fromHeader);
    const fromQuery = new URLSearchParams(query).get('api-key');
    if (fromQuery === null) return undefined;
    // MagicBlock's web3.js SDK appends `/<method>` to the URL it was given, so a URL with
    // `?api-key=KEY` becomes `?api-key=KEY/getDelegationStatus`: the key is what precedes it.
    const slash = fromQuery.indexOf('/');
    return this.find(fromQuery) ?? (slash > 0 ? this.find(fromQuery.slice(0, slash)) : undefined);
  }

  private find(presented: string): KeyAccount | undefined {
    const at = this.keys.indexOf(presented);
    return at < 0 ? undefined : this.accounts[at];
  }
}

function refuseDuplicates(entries: readonly ApiKeyEntry[]): void {
  const keys = entries.map((e) => (typeof e === 'string' ? e : e.key));
  const names = entries.flatMap((e) => (typeof e === 'string' ? [] : [e.name]));
  if (new Set(keys).size !== keys.length) throw new TypeError('apiKeys: the same key is listed twice');
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0)
    throw new TypeError(`apiKeys: names must be unique; listed twice: ${twice.join(', ')}`);
}
