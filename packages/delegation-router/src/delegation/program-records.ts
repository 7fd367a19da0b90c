import { address, getAddressDecoder, getBase58Decoder, getU64Encoder } from '@solana/kit';
import { DELEGATION_RECORD_DISCRIMINATOR, DELEGATION_RECORD_SIZE } from './record-codec.js';

/** Where a record's fields lie (record-codec's layout): the discriminator (u64), the ER, the owner program. */
const AUTHORITY_OFFSET = 8;
const OWNER_OFFSET = 40;
const PUBKEY_BYTES = 32;
const DISCRIMINATOR_BYTES = getBase58Decoder().decode(
  getU64Encoder().encode(DELEGATION_RECORD_DISCRIMINATOR),
);
const addressText = getAddressDecoder();

/**
 * The delegation program's getProgramAccounts (or programSubscribe) config that selects the
 * delegation records whose owner field is `program`, each sliced to its ER (authority): on
 * the base chain a delegated account is owned by the delegation program, and its record
 * keeps the owner it had.
 */
export function programRecordsConfig(program: string): object {
  return {
    encoding: 'base64',
    dataSlice: { offset: AUTHORITY_OFFSET, length: PUBKEY_BYTES },
    filters: [
      { dataSize: DELEGATION_RECORD_SIZE },
      { memcmp: { offset: 0, bytes: DISCRIMINATOR_BYTES } },
      { memcmp: { offset: OWNER_OFFSET, bytes: address(program) } },
    ],
  };
}

/** The ER of a record's slice (its base64 text), when it is one. */
export function authorityOfSlice(base64: string): string | undefined {
  const bytes = Buffer.from(base64, 'base64');
  return bytes.length === PUBKEY_BYTES ? addressText.decode(bytes) : undefined;
}
