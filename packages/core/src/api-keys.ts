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
    const presented = bearer(authorization) ?? new URLSearchParams(query).get('api-key') ?? undefined;
    if (presented === undefined) return false;
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
