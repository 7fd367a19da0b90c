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
    return this.indexOf(presented) >= 0;
  }

  /** Which of the secrets `presented` is (its index), or -1; every one is compared whatever matches. */
  indexOf(presented: string | undefined): number {
    const d = digest(presented ?? '');
    let found = -1;
    for (let i = 0; i < this.digests.length; i++) if (timingSafeEqual(this.digests[i]!, d)) found = i;
    return presented === undefined ? -1 : found;
  }
}
