import { randomInt } from 'node:crypto';

/**
 * Mixed into every key, so which keys share a bucket of V8's table (its hash of a small
 * integer has no seed) cannot be worked out from outside to make probes walk long chains.
 */
const KEY_SEED = randomInt(2 ** 30);

/**
 * A small integer standing for a text (a signature, say) in a table: its length and last
 * eight characters mixed into 30 bits with a per-process seed. V8 hashes a string over all
 * of its characters, once per string object, and every call's signatures are new strings
 * from JSON.parse: hashing 88 characters cost about 150 ns, a third of a 256-signature call
 * answered from memory (issue 12); a small integer is its own hash. (A 49-bit key, a heap
 * number, made each table operation dearer.) Different texts may share a key, so a table
 * keyed by it keeps the text beside its value and compares it. The last base58 digits are
 * the value modulo a power of 58, uniform for real signatures; the first are not.
 */
export function textKey(text: string): number {
  let key = text.length;
  for (let i = Math.max(0, text.length - 8); i < text.length; i++) {
    key = (Math.imul(key, 31) + text.charCodeAt(i)) | 0;
  }
  return (key ^ KEY_SEED) & 0x3fffffff;
}
