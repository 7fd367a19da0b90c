// JSON-RPC request bodies of the cases, and the checks their answers must pass.
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';

export const call = (method, params, id = 1) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );

export const getRoutes = () => call('getRoutes');
export const getSignatureStatuses = (signatures) => call('getSignatureStatuses', [signatures]);

/** `n` signatures repeating `known` (the peers know only a handful). */
export const cycle = (known, n) => Array.from({ length: n }, (_, i) => known[i % known.length]);

/**
 * A pool of request bodies asking for signatures nobody asked before in this run, so
 * every call of an "upstream" row really needs the upstream (no cache can answer it and
 * no in-flight lookup of another call has it). `count` bodies of `perBody` signatures.
 */
export function freshSignatureBodies(count, perBody) {
  // Changing only the last 4 base58 digits of a signature whose first byte is 0x10
  // keeps it exactly 64 bytes: cheap, distinct, valid signatures.
  const seed = Buffer.concat([Buffer.from([0x10]), randomBytes(63)]);
  const stem = bs58.encode(seed).slice(0, -4);
  const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const digits4 = (k) => {
    let s = '';
    for (let i = 0; i < 4; i++, k = Math.floor(k / 58)) s = ALPHABET[k % 58] + s;
    return s;
  };
  let next = 0;
  return Array.from({ length: count }, () =>
    getSignatureStatuses(Array.from({ length: perBody }, () => stem + digits4(next++))),
  );
}

// Checks return a reason when the answer is not what the row claims to measure.
const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const success = (msg) =>
  msg && typeof msg === 'object' && 'result' in msg && (msg.error === undefined || msg.error === null);

export const expectResult = (predicate, what) => (text) => {
  const msg = parse(text);
  if (!success(msg)) return `not a JSON-RPC success: ${text.slice(0, 160)}`;
  return predicate(msg.result) ? undefined : `unexpected result (${what}): ${text.slice(0, 160)}`;
};

export const expectStatuses = (n, { allKnown }) =>
  expectResult(
    (r) => Array.isArray(r?.value) && r.value.length === n && (!allKnown || r.value.every((s) => s !== null)),
    `${n} statuses${allKnown ? ', all known' : ''}`,
  );

export const expectBatch = (n) => (text) => {
  const msg = parse(text);
  if (!Array.isArray(msg) || msg.length !== n) return `not a batch of ${n}: ${text.slice(0, 160)}`;
  return msg.every(success) ? undefined : `a call of the batch failed: ${text.slice(0, 160)}`;
};
