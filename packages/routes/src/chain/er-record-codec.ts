import {
  addCodecSizePrefix,
  fixCodecSize,
  getBytesCodec,
  getStructCodec,
  getU16Codec,
  getU32Codec,
  getU8Codec,
  getUtf8Codec,
  type Codec,
} from '@solana/codecs';
import { getAddressCodec, type Address } from '@solana/kit';

/** The Magic Domain Program on every cluster MagicBlock runs (magicblock-labs/magic-domain-program). */
export const MDP_PROGRAM_ID = 'DmnRGfyyftzacFb1XadYhWF6vWqXwtQk5tbr6XgR3BA1';

/** The PDA seed of a record: the record of `identity` lives at PDA(["er-record", identity]). */
export const ER_RECORD_SEED = 'er-record';

/** `ErStatus` (borsh, explicit discriminants): only Active nodes take new work. */
export const ER_STATUSES = ['Active', 'Draining', 'Offline'] as const;
export type ErStatus = (typeof ER_STATUSES)[number];

/** `RecordV0`, field for field. `status` stays the raw byte: an unknown one is the caller's to judge. */
export interface ErRecordV0 {
  readonly identity: Address;
  readonly status: number;
  readonly blockTimeMs: number;
  readonly baseFee: number;
  /** A 256-bit feature set. */
  readonly features: Uint8Array;
  readonly loadAverage: number;
  /** ISO 3166 alpha-3, as ASCII. */
  readonly countryCode: string;
  /** The node's base URL. */
  readonly addr: string;
}

/**
 * `RecordV0` in borsh, as src/state/version/v0.rs declares it: little-endian integers,
 * fixed arrays inline, a String as u32 length then UTF-8.
 */
export const recordV0Codec: Codec<ErRecordV0> = getStructCodec([
  ['identity', getAddressCodec()],
  ['status', getU8Codec()],
  ['blockTimeMs', getU16Codec()],
  ['baseFee', getU16Codec()],
  ['features', fixCodecSize(getBytesCodec(), 32)],
  ['loadAverage', getU32Codec()],
  ['countryCode', fixCodecSize(getUtf8Codec(), 3)],
  ['addr', addCodecSizePrefix(getUtf8Codec(), getU32Codec())],
]) as Codec<ErRecordV0>;

/** The variant byte of `enum ErRecord { V0(RecordV0) }`; there is no Anchor discriminator. */
const V0 = 0;

export type DecodedRecord =
  { readonly ok: true; readonly record: ErRecordV0 } | { readonly ok: false; readonly reason: string };

/**
 * An account's data as an `ErRecord`, or why it is not one. Never throws: account data
 * is whatever is on chain, and one bad record must not take the others down.
 */
export function decodeErRecord(data: Uint8Array): DecodedRecord {
  if (data.length === 0) return { ok: false, reason: 'empty data' };
  const variant = data[0];
  if (variant !== V0) return { ok: false, reason: `unknown record variant ${variant}` };
  let record: ErRecordV0;
  let end: number;
  try {
    [record, end] = recordV0Codec.read(data, 1);
  } catch (err) {
    return { ok: false, reason: `malformed V0 record: ${(err as Error).message}` };
  }
  // borsh's try_from_slice, which the program itself uses, refuses trailing bytes too.
  if (end !== data.length)
    return { ok: false, reason: `malformed V0 record: ${data.length - end} bytes after it` };
  if (record.status >= ER_STATUSES.length) return { ok: false, reason: `unknown status ${record.status}` };
  return { ok: true, record };
}

/** The record's status by name (decodeErRecord has checked it is a known one). */
export const statusOf = (record: ErRecordV0): ErStatus => ER_STATUSES[record.status]!;

/** Account data of a V0 record: the variant byte, then the record (tests and tools register with it). */
export function encodeErRecord(record: ErRecordV0): Uint8Array {
  const body = recordV0Codec.encode(record);
  const out = new Uint8Array(1 + body.length);
  out[0] = V0;
  out.set(body, 1);
  return out;
}
