import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

/**
 * API keys as Solana RPC providers take them: `Authorization: Bearer KEY` or
 * `?api-key=KEY`. Keys are compared as SHA-256 digests with timingSafeEqual, against
 * every configured key, so neither the key's length nor which key matched shows in
 * the time taken.
 */
export class ApiKeys {
  private readonly digests: readonly Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  get enabled(): boolean {
    return this.digests.length > 0;
  }

  accepts(authorization: string | undefined, query: string): boolean {
    const fromHeader = bearer(authorization);
    if (fromHeader !== undefined) return this.knows(fromHeader);
    const fromQuery = new URLSearchParams(query).get('api-key');
    if (fromQuery === null) return false;
    // MagicBlock's web3.js SDK appends `/<method>` to the URL it was given, so a URL with
    // `?api-key=KEY` becomes `?api-key=KEY/getDelegationStatus`: the key is what precedes it.
    const slash = fromQuery.indexOf('/');
    return this.knows(fromQuery) || (slash > 0 && this.knows(fromQuery.slice(0, slash)));
  }

  private knows(presented: string): boolean {
    const d = digest(presented);
    let ok = false;
    for (const known of this.digests) ok = timingSafeEqual(known, d) || ok;
    return ok;
  }
}

function bearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
