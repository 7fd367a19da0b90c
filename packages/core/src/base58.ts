const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/**
 * How many bytes base58 text decodes to, or -1 when it is not base58. Validation only
 * needs the length, and a full decode (base-x's byte-by-byte long multiplication) costs
 * six times more: 256 signatures per call made it the hot path's largest cost. Leading
 * '1's are zero bytes; the rest is a base-58 number whose magnitude gives the length.
 */
export function base58DecodedLength(text: string): number {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  let value = 0n;
  let i = zeros;
  while (i < text.length) {
    // Nine digits fit a double exactly (58^9 < 2^53), so BigInt steps are few.
    let chunk = 0;
    let scale = 1;
    const end = Math.min(i + 9, text.length);
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      const d = c < 128 ? DIGIT[c]! : -1;
      if (d < 0) return -1;
      chunk = chunk * 58 + d;
      scale *= 58;
    }
    value = value * BigInt(scale) + BigInt(chunk);
  }
  return value === 0n ? zeros : zeros + Math.ceil(value.toString(16).length / 2);
}
