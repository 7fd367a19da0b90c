import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { SignedMessage } from './decode-transaction.js';

/** An Ed25519 public key as SubjectPublicKeyInfo DER: this prefix, then the 32 raw bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Fee payers' keys as Node key objects: building one costs as much as a verification
 * (about 180 µs each here), and an app sends from the same payer again and again.
 */
const keys = new LRUCache<string, KeyObject>({ max: 4096 });

/** A view of `bytes` that node:crypto takes (the codecs' arrays are typed read-only). */
const view = (bytes: SignedMessage['feePayer']): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function keyOf(feePayer: SignedMessage['feePayer']): KeyObject {
  const raw = view(feePayer);
  const id = raw.toString('latin1');
  let key = keys.get(id);
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    keys.set(id, key);
  }
  return key;
}

/**
 * Whether the fee payer signed the message: the signature is then the transaction's own,
 * not bytes copied from another transaction to make an upstream answer for it.
 */
export function feePayerSigned(signed: SignedMessage): boolean {
  try {
    return verify(null, signed.message, keyOf(signed.feePayer), view(signed.signature));
  } catch {
    return false;
  }
}
