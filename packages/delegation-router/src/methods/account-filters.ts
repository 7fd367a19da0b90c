import { RpcError } from '@rollup-router/core';
import { getBase58Encoder } from '@solana/kit';

const base58 = getBase58Encoder();

/** Whether an account's data passes every filter of a getProgramAccounts call. */
export type DataFilter = (data: Uint8Array) => boolean;

/**
 * The `filters` of a getProgramAccounts config as one predicate on account data, as Agave
 * applies them (all must hold): `dataSize` is the data's length, `memcmp` its bytes at
 * `offset` (base58 unless `encoding` says base64). The router applies them to the data
 * of delegated accounts as their ER holds it, which the base chain cannot: other filters
 * (tokenAccountState) are refused here, with the reason, rather than ignored.
 */
export function dataFilterOf(filters: unknown): DataFilter | RpcError {
  if (filters === undefined || filters === null) return () => true;
  if (!Array.isArray(filters)) return refused('filters is not an array');
  const tests: DataFilter[] = [];
  for (const filter of filters as unknown[]) {
    const test = testOf(filter);
    if (test instanceof RpcError) return test;
    tests.push(test);
  }
  return (data) => tests.every((t) => t(data));
}

function testOf(filter: unknown): DataFilter | RpcError {
  const { dataSize, memcmp } = (filter ?? {}) as { dataSize?: unknown; memcmp?: unknown };
  if (Number.isSafeInteger(dataSize) && (dataSize as number) >= 0) {
    return (data) => data.length === dataSize;
  }
  if (memcmp !== undefined && memcmp !== null && typeof memcmp === 'object') {
    const { offset, bytes, encoding } = memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown };
    if (!Number.isSafeInteger(offset) || (offset as number) < 0 || typeof bytes !== 'string') {
      return refused('memcmp needs an offset and bytes');
    }
    const wanted = bytesOf(bytes, encoding);
    if (wanted instanceof RpcError) return wanted;
    const at = offset as number;
    return (data) => data.length >= at + wanted.length && wanted.every((byte, i) => data[at + i] === byte);
  }
  return refused(`filter ${JSON.stringify(filter)} cannot be applied to delegated accounts`);
}

function bytesOf(text: string, encoding: unknown): Uint8Array | RpcError {
  if (encoding === 'base64') return new Uint8Array(Buffer.from(text, 'base64'));
  if (encoding !== undefined && encoding !== 'base58') return refused(`memcmp encoding ${String(encoding)}`);
  try {
    return new Uint8Array(base58.encode(text));
  } catch {
    return refused('memcmp bytes are not base58');
  }
}

const refused = (reason: string): RpcError => new RpcError(-32602, `Invalid params: ${reason}`);
