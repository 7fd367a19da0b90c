import { createHash, timingSafeEqual } from 'node:crypto';
import type { CoreOptionsResolved } from './generated/schemas.js';
import type { RateBudget, RateLimit } from './rate-limit.js';

/** One `apiKeys` entry: a plain key, or a named key with a budget of its own. */
export type ApiKeyEntry = CoreOptionsResolved['apiKeys'][number];

/** A configured key as the admission step knows it: its name (never the key) and its own budget. */
export interface KeyAccount {
  /** What metrics call the key; undefined for a key given as a plain string. */
  readonly name: string | undefined;
  /** The key's own budget; undefined when its calls are charged to their client address's. */
  readonly budget: RateLimit | undefined;
}

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

const PLAIN: KeyAccount = { name: undefined, budget: undefined };

/**
 * API keys as Solana RPC providers take them: `Authorization: Bearer KEY` or
 * `?api-key=KEY`. Keys are compared as SHA-256 digests with timingSafeEqual, against
 * every configured key, so neither the key's length nor which key matched shows in
 * the time taken.
 */
export class ApiKeys {
  private readonly digests: readonly Buffer[];
  private readonly accounts: readonly KeyAccount[];

  /** `budgetOf` makes a named key's own budget; names and keys must be unique. */
  constructor(entries: readonly ApiKeyEntry[], budgetOf: (budget: RateBudget) => RateLimit) {
    refuseDuplicates(entries);
    this.digests = entries.map((e) => digest(typeof e === 'string' ? e : e.key));
    this.accounts = entries.map((e) =>
      typeof e === 'string'
        ? PLAIN
        : { name: e.name, budget: e.rateLimit === undefined ? undefined : budgetOf(e.rateLimit) },
    );
  }

  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /** The account of the key presented, or undefined when none or an unknown one is. */
  accountOf(authorization: string | undefined, query: string): KeyAccount | undefined {
    const fromHeader = bearer(authorization);
    if (fromHeader !== undefined) return this.find(fromHeader);
    const fromQuery = new URLSearchParams(query).get('api-key');
    if (fromQuery === null) return undefined;
    // MagicBlock's web3.js SDK appends `/<method>` to the URL it was given, so a URL with
    // `?api-key=KEY` becomes `?api-key=KEY/getDelegationStatus`: the key is what precedes it.
    const slash = fromQuery.indexOf('/');
    return this.find(fromQuery) ?? (slash > 0 ? this.find(fromQuery.slice(0, slash)) : undefined);
  }

  private find(presented: string): KeyAccount | undefined {
    const d = digest(presented);
    let found: KeyAccount | undefined;
    for (let i = 0; i < this.digests.length; i++) {
      if (timingSafeEqual(this.digests[i]!, d)) found = this.accounts[i];
    }
    return found;
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

function bearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
