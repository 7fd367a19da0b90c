import { bearerToken } from './bearer-token.js';
import { SecretMatch } from './secret-match.js';

/**
 * API keys as Solana RPC providers take them: `Authorization: Bearer KEY` or
 * `?api-key=KEY`, checked in constant time (SecretMatch).
 */
export class ApiKeys {
  private readonly keys: SecretMatch;

  constructor(keys: readonly string[]) {
    this.keys = new SecretMatch(keys);
  }

  get enabled(): boolean {
    return this.keys.size > 0;
  }

  accepts(authorization: string | undefined, query: string): boolean {
    const fromHeader = bearerToken(authorization);
    if (fromHeader !== undefined) return this.keys.matches(fromHeader);
    const fromQuery = new URLSearchParams(query).get('api-key');
    if (fromQuery === null) return false;
    // MagicBlock's web3.js SDK appends `/<method>` to the URL it was given, so a URL with
    // `?api-key=KEY` becomes `?api-key=KEY/getDelegationStatus`: the key is what precedes it.
    const slash = fromQuery.indexOf('/');
    return this.keys.matches(fromQuery) || (slash > 0 && this.keys.matches(fromQuery.slice(0, slash)));
  }
}
