import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';

/** A fresh node identity: base58 text of 32 random bytes, like a real public key. */
export const newIdentity = (): string => bs58.encode(randomBytes(32));
