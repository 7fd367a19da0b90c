/**
 * A small integer standing for a signature in the memory cache's tables, mixed from its
 * last eight characters into 30 bits. V8 hashes a string over all of its characters, once
 * per string object, and every call's signatures are new strings from JSON.parse: hashing
 * 88 characters cost about 150 ns, a third of a 256-signature call answered from memory
 * (issue 12); a small integer is its own hash. (A 49-bit key, a heap number, made each
 * table operation dearer: fresh signatures' find and learn took 1.25x as long.) Different
 * signatures may share a key, so a table keyed by it keeps the signature beside its value
 * and compares it. The last base58 digits are the value modulo a power of 58, uniform for
 * real signatures; the first are not (an 88-digit value starts with a small digit).
 */
export function signatureKey(signature: string): number {
  let key = 0;
  for (let i = Math.max(0, signature.length - 8); i < signature.length; i++) {
    key = (Math.imul(key, 31) + signature.charCodeAt(i)) | 0;
  }
  return key & 0x3fffffff;
}
