import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Secrets (API keys, tokens) a caller presents, checked against the configured ones as
 * SHA-256 digests with timingSafeEqual, against every one of them: neither the length of a
 * guess nor which secret matched shows in the time taken.
 */
export class SecretMatch {
  private readonly digests: readonly Buffer[];

  constructor(secrets: readonly string[]) {
    this.digests = secrets.map(digest);
  }

  get size(): number {
    return this.digests.length;
  }

  /** Whether `presented` is one of the secrets (none presented: no, in the same time). */
  matches(presented: string | undefined): boolean {
    const d = digest(presented ?? '');
    let ok = false;
    for (const known of this.digests) ok = timingSafeEqual(known, d) || ok;
    return ok && presented !== undefined;
  }
}
