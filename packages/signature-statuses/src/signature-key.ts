/**
 * A number standing for a signature in the memory cache's tables: its last seven
 * characters, seven bits each (49 bits, exact in a double). V8 hashes a string over all of
 * its characters, once per string object, and every call's signatures are new strings from
 * JSON.parse: hashing 88 characters cost about 150 ns, a third of a 256-signature call
 * answered from memory (issue 12); a number is hashed in a few instructions. Different
 * signatures may share a key, so a table keyed by it keeps the signature beside its value
 * and compares it. The last base58 digits are the value modulo 58^7, uniform for real
 * signatures; the first are not (an 88-digit value starts with a small digit).
 */
export function signatureKey(signature: string): number {
  let key = 0;
  for (let i = Math.max(0, signature.length - 7); i < signature.length; i++) {
    key = key * 128 + (signature.charCodeAt(i) & 127);
  }
  return key;
}
