import { getStructCodec, getU64Codec, type Codec } from '@solana/codecs';
import { getAddressCodec, type Address } from '@solana/kit';

/** MagicBlock's delegation program on every cluster it runs (magicblock-labs/delegation-program). */
export const DELEGATION_PROGRAM_ID = 'DELeGGvXpWV2fqJUhqcF5ZSYMS4JTLjteaAMARRSaeSh';

/** The PDA seed of a record: the record of `account` lives at PDA(["delegation", account]). */
export const DELEGATION_RECORD_SEED = 'delegation';

/**
 * `AccountDiscriminator::DelegationRecord` (src/state/utils/discriminator.rs): the u8 100,
 * written as a little-endian u64 in the account's first 8 bytes.
 */
export const DELEGATION_RECORD_DISCRIMINATOR = 100n;

/** `DelegationRecord` (src/state/delegation_record.rs), field for field. */
export interface DelegationRecord {
  /** The ER validator the account is delegated to; the default key when the delegator named none. */
  readonly authority: Address;
  /** The account's owner program before delegation. */
  readonly owner: Address;
  readonly delegationSlot: bigint;
  readonly lamports: bigint;
  readonly commitFrequencyMs: bigint;
}

interface RecordAccount extends DelegationRecord {
  readonly discriminator: bigint;
}

/**
 * The account's bytes: the discriminator, then the `#[repr(C)]` Pod struct (two pubkeys and
 * three u64s, no padding), little-endian, as bytemuck reads it.
 */
const recordAccountCodec: Codec<RecordAccount> = getStructCodec([
  ['discriminator', getU64Codec()],
  ['authority', getAddressCodec()],
  ['owner', getAddressCodec()],
  ['delegationSlot', getU64Codec()],
  ['lamports', getU64Codec()],
  ['commitFrequencyMs', getU64Codec()],
]) as Codec<RecordAccount>;

/** 8 + 32 + 32 + 8 + 8 + 8: `DelegationRecord::size_with_discriminator()`. */
export const DELEGATION_RECORD_SIZE = 96;

export type DecodedDelegation =
  { readonly ok: true; readonly record: DelegationRecord } | { readonly ok: false; readonly reason: string };

/**
 * A record account's data as a `DelegationRecord`, or why it is not one. Never throws:
 * account data is whatever is on chain. Like the program's own
 * try_from_bytes_with_discriminator (bytemuck::try_from_bytes), it takes exactly the
 * record's size, no more and no less, and the record's discriminator only.
 */
export function decodeDelegationRecord(data: Uint8Array): DecodedDelegation {
  if (data.length !== DELEGATION_RECORD_SIZE) {
    return { ok: false, reason: `${data.length} bytes, a delegation record has ${DELEGATION_RECORD_SIZE}` };
  }
  let account: RecordAccount;
  try {
    account = recordAccountCodec.decode(data);
  } catch (err) {
    return { ok: false, reason: `malformed delegation record: ${(err as Error).message}` };
  }
  if (account.discriminator !== DELEGATION_RECORD_DISCRIMINATOR) {
    return { ok: false, reason: `discriminator ${account.discriminator}, a delegation record has 100` };
  }
  const { discriminator: _, ...record } = account;
  return { ok: true, record };
}

/** The bytes the program writes for `record` (tests and stand-ins write records with it). */
export function encodeDelegationRecord(record: DelegationRecord): Uint8Array {
  return new Uint8Array(
    recordAccountCodec.encode({ discriminator: DELEGATION_RECORD_DISCRIMINATOR, ...record }),
  );
}
