const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/**
 * The longest text measured. The magnitude's work grows with the square of the length,
 * so unbounded text is a denial of service (a 1 MiB string took 54 s); no Solana value is
 * near this (signatures are at most 88 characters, public keys 44).
 */
export const MAX_BASE58_TEXT = 256;

/** The most characters base58 text of `bytes` bytes can have: 88 for 64, 44 for 32 (Agave's bounds). */
export const maxBase58Length = (bytes: number): number => Math.ceil((bytes * Math.log(256)) / Math.log(58));

/** Limbs of the magnitude: 24 bits, so a limb times 58^4 plus a carry stays exact in a double. */
const LIMB = 2 ** 24;

/**
 * How many bytes base58 text decodes to, or -1 when it is not base58 or is longer than
 * MAX_BASE58_TEXT (refused before any work, whatever its length). Validation only
 * needs the length, and a full decode (base-x's byte-by-byte long multiplication) costs
 * six times more: 256 signatures per call made it the hot path's largest cost. Leading
 * '1's are zero bytes; the rest is a base-58 number whose magnitude gives the length,
 * computed four digits at a time in 24-bit limbs of plain numbers: a BigInt per step
 * allocated, which made it a third slower and left garbage for every fresh signature.
 */
export function base58DecodedLength(text: string): number {
  if (text.length > MAX_BASE58_TEXT) return -1;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  const limbs: number[] = [];
  let i = zeros;
  while (i < text.length) {
    let chunk = 0;
    let scale = 1;
    const end = Math.min(i + 4, text.length);
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      const d = c < 128 ? DIGIT[c]! : -1;
      if (d < 0) return -1;
      chunk = chunk * 58 + d;
      scale *= 58;
    }
    let carry = chunk;
    for (let k = 0; k < limbs.length; k++) {
      const x = limbs[k]! * scale + carry;
      carry = Math.floor(x / LIMB);
      limbs[k] = x - carry * LIMB;
    }
    for (; carry > 0; carry = Math.floor(carry / LIMB)) limbs.push(carry % LIMB);
  }
  let top = limbs.length - 1;
  while (top >= 0 && limbs[top] === 0) top--;
  if (top < 0) return zeros;
  const bits = 24 * top + (32 - Math.clz32(limbs[top]!));
  return zeros + Math.ceil(bits / 8);
}
