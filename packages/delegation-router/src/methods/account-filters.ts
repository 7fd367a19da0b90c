import { RpcError } from '@rollup-router/core';
import { getBase58Encoder } from '@solana/kit';

const base58 = getBase58Encoder();

/** Whether an account's data passes every filter of a getProgramAccounts call. */
export type DataFilter = (data: Uint8Array) => boolean;

/**
 * The `filters` of a getProgramAccounts config as one predicate on account data, as Agave
 * applies them (all must hold): `dataSize` is the data's length, `memcmp` its bytes at
 * `offset` (base58 unless `encoding` says base64), `tokenAccountState` that the data is an
 * initialized token account (isTokenAccount). The router applies them to the data of
 * delegated accounts as their ER holds it, which the base chain cannot: any other filter
 * is refused here, with the reason, rather than ignored.
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
  if (filter === 'tokenAccountState') return isTokenAccount;
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

/** An SPL Token account's length; a Token-2022 account with extensions is longer. */
const TOKEN_ACCOUNT_LENGTH = 165;
/** A multisig's length, which Token-2022 keeps an account with extensions from having. */
const MULTISIG_LENGTH = 355;
/** Where a token account's state is: 0 is uninitialized. */
const STATE_OFFSET = 108;
/** Token-2022's AccountType::Account, written just past the base account. */
const ACCOUNT_TYPE_ACCOUNT = 2;

/** Agave's tokenAccountState (spl-generic-token's token_2022 Account::valid_account_data). */
function isTokenAccount(data: Uint8Array): boolean {
  const initialized = data.length > STATE_OFFSET && data[STATE_OFFSET] !== 0;
  if (data.length === TOKEN_ACCOUNT_LENGTH) return initialized;
  return (
    data.length > TOKEN_ACCOUNT_LENGTH &&
    data.length !== MULTISIG_LENGTH &&
    data[TOKEN_ACCOUNT_LENGTH] === ACCOUNT_TYPE_ACCOUNT &&
    initialized
  );
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
