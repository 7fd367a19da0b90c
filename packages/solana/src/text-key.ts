import { randomInt } from 'node:crypto';

/**
 * Where every key starts, so which texts share a key, and which keys share a bucket of V8's
 * table (its hash of a small integer has no seed), cannot be worked out from outside to make
 * probes walk long chains.
 */
const KEY_SEED = randomInt(2 ** 30);
/** FNV-1a's 32-bit prime. */
const FNV_PRIME = 16777619;

/**
 * A small integer standing for a text (a signature, say) in a table: its length and last
 * eight characters, FNV-1a style from a per-process seed, into 30 bits. V8 hashes a string
 * over all of its characters, once per string object, and every call's signatures are new
 * strings from JSON.parse: hashing 88 characters cost about 150 ns, a third of a
 * 256-signature call answered from memory (issue 12); a small integer is its own hash. (A
 * 49-bit key, a heap number, made each table operation dearer.) Different texts may share a
 * key, so a table keyed by it keeps the text beside its value and compares it. The last
 * base58 digits are the value modulo a power of 58, uniform for real signatures; the first
 * are not. Each character is XORed in before the multiply, and the seed goes in first: the
 * previous key, a sum of the characters times powers of 31, gave texts that differ by +1 and
 * -31 in two adjacent digits the same key whatever the seed, so texts counting up in their
 * last digits shared one key per seven, and colliding texts could be made on purpose.
 */
export function textKey(text: string): number {
  let key = KEY_SEED ^ text.length;
  for (let i = Math.max(0, text.length - 8); i < text.length; i++) {
    key = Math.imul(key ^ text.charCodeAt(i), FNV_PRIME);
  }
  return key & 0x3fffffff;
}
