const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
// V8's compiled regexp checks the alphabet faster than a table loop in JavaScript.
const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]*$/;

/**
 * The longest text measured. The magnitude's work grows with the square of the length,
 * so unbounded text is a denial of service (a 1 MiB string took 54 s); no Solana value is
 * near this (signatures are at most 88 characters, public keys 44).
 */
export const MAX_BASE58_TEXT = 256;

/** The most characters base58 text of `bytes` bytes can have: 88 for 64, 44 for 32 (Agave's bounds). */
const maxBase58Length = (bytes: number): number => Math.ceil((bytes * Math.log(256)) / Math.log(58));

/** Why text is not base58 of the expected size, in Agave's words; '' when it is. */
export type Base58Failure = '' | 'Invalid' | 'WrongSize';

/**
 * The check of base58 text for `size` bytes: 'WrongSize' for text longer than base58 of
 * `size` bytes can be (before any decoding, as Agave checks) or decoding to another size,
 * 'Invalid' for text that is not base58. The bound is computed once per size.
 */
export function base58Check(size: number): (text: string) => Base58Failure {
  const maxLength = maxBase58Length(size);
  return (text) => {
    if (text.length > maxLength) return 'WrongSize';
    const length = base58DecodedLength(text);
    return length === size ? '' : length === -1 ? 'Invalid' : 'WrongSize';
  };
}

/**
 * Per count of significant digits n: the byte length of the smallest n-digit number,
 * and the one power of 256 inside the n-digit range (58^(n-1), 58^n) written as n
 * base58 digits, or '' when none falls inside (58 < 256, so there is at most one).
 */
const LOW_BYTES: number[] = [0];
const BOUNDARY: string[] = [''];
{
  // The base58 digits of 256^k (least significant first), one multiplication by 256 per
  // k: every power of 256 up to the longest text, in well under a millisecond.
  const digits = [1];
  for (let k = 1; LOW_BYTES.length <= MAX_BASE58_TEXT; k++) {
    let carry = 0;
    for (let i = 0; i < digits.length; i++) {
      const x = digits[i]! * 256 + carry;
      digits[i] = x % 58;
      carry = Math.floor(x / 58);
    }
    for (; carry > 0; carry = Math.floor(carry / 58)) digits.push(carry % 58);
    // 256^(k-1) < 58^(n-1) < 256^k for every digit count n up to that of 256^k: k bytes.
    while (LOW_BYTES.length < digits.length) {
      LOW_BYTES.push(k);
      BOUNDARY.push('');
    }
    if (digits.length <= MAX_BASE58_TEXT) {
      LOW_BYTES.push(k);
      BOUNDARY.push(
        digits
          .map((d) => ALPHABET[d]!)
          .reverse()
          .join(''),
      );
    }
  }
}

/**
 * How many bytes base58 text decodes to, or -1 when it is not base58 or is longer than
 * MAX_BASE58_TEXT (refused before any work, whatever its length). Validation only needs
 * the length, not the bytes, and every signature of every call is checked, so this is
 * on the hot path. Leading '1's are zero bytes; the rest is a number whose byte length
 * follows from its digit count and one comparison with the power of 256 inside that
 * digit count's range: base58's alphabet is in ASCII order, so among texts of the same
 * length string order is numeric order. No arithmetic, no allocation (a magnitude
 * computed in limbs cost 0.87 µs per signature, ten times this).
 */
export function base58DecodedLength(text: string): number {
  const length = text.length;
  if (length > MAX_BASE58_TEXT) return -1;
  if (!BASE58_TEXT.test(text)) return -1;
  let zeros = 0;
  while (zeros < length && text.charCodeAt(zeros) === 49) zeros++;
  const n = length - zeros;
  if (n === 0) return zeros;
  const boundary = BOUNDARY[n]!;
  const rest = zeros === 0 ? text : text.slice(zeros);
  return zeros + LOW_BYTES[n]! + (boundary !== '' && rest >= boundary ? 1 : 0);
}
