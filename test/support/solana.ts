import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import type { RouteEntry } from '@rollup-router/routes';
import type { SignatureStatus, TransactionError } from '@rollup-router/signature-statuses';

/** A random, valid (64-byte) signature no node has seen. */
export const randomSignature = (): string => bs58.encode(randomBytes(64));

export const randomSignatures = (n: number): string[] => Array.from({ length: n }, randomSignature);

/**
 * Two different signatures that end in the same characters, so they share a textKey
 * (length and last 8 characters): tables keyed by it must tell them apart by their text.
 */
export function signaturesSharingKey(): [string, string] {
  const a = randomSignature();
  return [a, `${a.slice(0, 10)}${a[10] === 'x' ? 'y' : 'x'}${a.slice(11)}`];
}

/**
 * `n` valid signatures of consecutive values from a random one, so their base58 text counts
 * up in its last digits (up to 65,536: the count goes in the last two bytes).
 */
export function signaturesCountingUp(n: number): string[] {
  const bytes = randomBytes(64);
  return Array.from({ length: n }, (_, i) => {
    bytes.writeUInt16BE(i, 62);
    return bs58.encode(bytes);
  });
}

/** A fresh public key (a node identity): base58 text of 32 random bytes. */
export const newIdentity = (): string => bs58.encode(randomBytes(32));

/** A valid route entry with a fresh identity; `over` replaces members. */
export const routeEntry = (over: Partial<RouteEntry> = {}): RouteEntry => ({
  identity: newIdentity(),
  fqdn: 'https://er-1.example.com',
  baseFee: 0,
  blockTimeMs: 50,
  countryCode: 'DEU',
  ...over,
});

/** A status as a Solana node writes it (keys in the validator's alphabetical order). */
export function status(
  confirmationStatus: SignatureStatus['confirmationStatus'],
  slot: number,
  err: TransactionError | null = null,
  confirmations: number | null = confirmationStatus === 'finalized' ? null : 1,
): SignatureStatus {
  return { confirmationStatus, confirmations, err, slot, status: err === null ? { Ok: null } : { Err: err } };
}
