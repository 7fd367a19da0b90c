// Deterministic data shared by the runner (request bodies) and the targets (config):
// the same signatures and routes on both sides without passing them around.
import bs58 from 'bs58';
import { createHash } from 'node:crypto';

const bytes = (label, i, n) => {
  const out = Buffer.alloc(n);
  for (let off = 0, k = 0; off < n; k++) {
    off += createHash('sha256').update(`${label}:${i}:${k}`).digest().copy(out, off);
  }
  return out;
};

/** `n` distinct base58 transaction signatures (64 bytes each). */
export const benchSignatures = (n) => Array.from({ length: n }, (_, i) => bs58.encode(bytes('sig', i, 64)));

const COUNTRIES = ['DEU', 'USA', 'SGP', 'JPN', 'FRA', 'GBR', 'CAN', 'BRA', 'AUS', 'IND'];

/** `n` ephemeral-rollup nodes as getRoutes lists them (https, unique identities). */
export const benchRoutes = (n) =>
  Array.from({ length: n }, (_, i) => ({
    identity: bs58.encode(bytes('node', i, 32)),
    fqdn: `https://er-${i}.bench.example`,
    baseFee: i === 0 ? 0 : 5000,
    blockTimeMs: 50,
    countryCode: COUNTRIES[i % COUNTRIES.length],
  }));

/** The bytes our server answers `getRoutes` (id 1) with: the bare node:http row serves the same. */
export const routesResponse = (n) => JSON.stringify({ jsonrpc: '2.0', result: benchRoutes(n), id: 1 });
