// JSON-RPC request bodies of the cases (checks.mjs: what their answers must be).
import { randomBytes } from 'node:crypto';

export const call = (method, params, id = 1) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );

/** A row's one request: `body` POSTed to `path`. */
export const post = (body, path = '/') => [{ path, body }];

export const getRoutes = () => call('getRoutes');
export const getSignatureStatuses = (signatures) => call('getSignatureStatuses', [signatures]);

/** `n` signatures repeating `known` (the peers know only a handful). */
export const cycle = (known, n) => Array.from({ length: n }, (_, i) => known[i % known.length]);

/**
 * `count` bodies of `perBody` signatures nobody asked before in this run, so every call of an
 * "upstream" row really needs the upstream. Random in every digit, as real signatures are: a
 * counter in the last digits made tables keyed by a signature's text do less work than real traffic.
 */
export function freshSignatureBodies(count, perBody) {
  return Array.from({ length: count }, () => getSignatureStatuses(randomSignatureTexts(perBody)));
}

const ALPHABET = Buffer.from('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz');

/**
 * `n` texts of 88 random base58 digits whose first is 2-5, so each decodes to exactly 64 bytes.
 * Drawn as digits: bs58.encode of random bytes took 5.6 s for bench:dispatch's 512,000, this 0.3.
 */
export function randomSignatureTexts(n) {
  const digits = randomBytes(88 * n);
  for (let i = 0; i < digits.length; i++) {
    digits[i] = ALPHABET[i % 88 === 0 ? 1 + (digits[i] % 4) : digits[i] % 58];
  }
  return Array.from({ length: n }, (_, k) => digits.toString('latin1', 88 * k, 88 * (k + 1)));
}
