import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether an Authorization header carries `Bearer <token>`. Both sides are hashed first,
 * so the comparison takes the same time whatever the length or content of a guess.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer +(\S+)\s*$/i.exec(header ?? '');
  return timingSafeEqual(digest(m?.[1] ?? ''), digest(token)) && m !== null;
}
