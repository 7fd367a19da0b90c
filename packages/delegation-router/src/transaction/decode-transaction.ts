import {
  addDecoderSizePrefix,
  assertByteArrayHasEnoughBytesForCodec,
  createDecoder,
  fixDecoderSize,
  getArrayDecoder,
  getBytesDecoder,
  getShortU16Decoder,
  getStructDecoder,
  type ReadonlyUint8Array,
} from '@solana/codecs';
import {
  getBase58Decoder,
  getBase58Encoder,
  isSolanaError,
  SOLANA_ERROR__CODECS__CANNOT_DECODE_EMPTY_BYTE_ARRAY,
  SOLANA_ERROR__CODECS__INVALID_BYTE_LENGTH,
} from '@solana/kit';
import { LRUCache } from 'lru-cache';

/** The fee payer's key and signature over the message bytes (views into the wire bytes). */
export interface SignedMessage {
  readonly feePayer: ReadonlyUint8Array;
  readonly signature: ReadonlyUint8Array;
  readonly message: Uint8Array;
}

/** A v0 transaction's use of one address lookup table. */
export interface TableLookup {
  readonly table: string;
  readonly writableIndexes: readonly number[];
}

/** What routing needs of a wire transaction. */
export interface RoutedTransaction extends RoutedAccounts {
  /** The fee payer's signature: the transaction's id. */
  readonly signature: string;
  /** What proves `signature` the transaction's own: the fee payer's key, its signature and the signed message. */
  readonly signed: SignedMessage;
  readonly version: 'legacy' | 0;
}

export type DecodedWire =
  { readonly ok: true; readonly tx: RoutedTransaction } | { readonly ok: false; readonly reason: string };

const base58 = getBase58Encoder();
const base58Text = getBase58Decoder();
const shortU16 = getShortU16Decoder();
const key = fixDecoderSize(getBytesDecoder(), 32);
/**
 * A byte, read as a byte. The codecs' getU8Decoder reads every number through a DataView
 * over a copied ArrayBuffer (toArrayBuffer slices the Buffer's pool): a transfer's dozen
 * u8 reads were a third of its decode.
 */
const u8 = createDecoder<number>({
  fixedSize: 1,
  read: (bytes, offset) => {
    assertByteArrayHasEnoughBytesForCodec('u8', 1, bytes, offset);
    return [bytes[offset]!, offset + 1];
  },
});
const u8s = getArrayDecoder(u8, { size: shortU16 });

/**
 * A wire transaction's parts as @solana/codecs reads them, the layout of kit's
 * getCompiledTransactionMessageDecoder, keys kept as bytes. Kit's decoder builds its
 * decoders again on every read and turns every key and the blockhash into base58 (BigInt
 * arithmetic, about 15 µs a key). Built once here, only the writable keys turned into
 * text and bytes read as bytes (u8 above): a transfer's decode went from 110 to 10 µs
 * (base64, its keys seen before).
 */
const signaturesDecoder = getArrayDecoder(fixDecoderSize(getBytesDecoder(), 64), { size: shortU16 });
const headerDecoder = getStructDecoder([
  ['numSignerAccounts', u8],
  ['numReadonlySignerAccounts', u8],
  ['numReadonlyNonSignerAccounts', u8],
]);
const accountsDecoder = getArrayDecoder(key, { size: shortU16 });
const instructionsDecoder = getArrayDecoder(
  getStructDecoder([
    ['programAddressIndex', u8],
    ['accountIndices', u8s],
    ['data', addDecoderSizePrefix(getBytesDecoder(), shortU16)],
  ]),
  { size: shortU16 },
);
const lookupsDecoder = getArrayDecoder(
  getStructDecoder([
    ['lookupTableAddress', key],
    ['writableIndexes', u8s],
    ['readonlyIndexes', u8s],
  ]),
  { size: shortU16 },
);

/**
 * Keys seen lately, by their bytes, with their base58 text: an app sends from the same
 * payer and to the same accounts again and again, and kit's base58 costs about 15 µs a
 * key (BigInt arithmetic). 4,096 entries are about 1 MB.
 */
const keyTexts = new LRUCache<string, string>({ max: 4096 });

function keyText(address: ReadonlyUint8Array): string {
  const bytes = Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString('latin1');
  let text = keyTexts.get(bytes);
  if (text === undefined) keyTexts.set(bytes, (text = base58Text.decode(address)));
  return text;
}

/** A first message byte with its high bit set is a version prefix (kit's getTransactionVersionDecoder). */
const VERSION_FLAG = 0x80;

function versionOf(version: number): 0 {
  if (version !== 0) throw new Error(`transaction version ${version} is not supported`);
  return version;
}

/** The parts of a wire transaction, in order, as a reason names them. */
type Part =
  'signatures' | 'header' | 'account keys' | 'recent blockhash' | 'instructions' | 'address table lookups';

/**
 * What a codec's failure inside `part` means to the sender, in the transaction's terms: the
 * codecs' own text ("Codec [fixCodecSize] expected 64 bytes, got 7.") names their internals.
 */
class MalformedPart extends Error {
  constructor(part: Part, length: number, cause: unknown) {
    const short =
      isSolanaError(cause, SOLANA_ERROR__CODECS__INVALID_BYTE_LENGTH) ||
      isSolanaError(cause, SOLANA_ERROR__CODECS__CANNOT_DECODE_EMPTY_BYTE_ARRAY);
    super(
      short
        ? `it ends inside its ${part} (${length} byte${length === 1 ? '' : 's'} in all)`
        : `its ${part} cannot be read: ${(cause as Error).message}`,
    );
  }
}

/** The message from `offset`: its version, header, static keys and v0 lookups, and where it ends. */
function readMessage(bytes: Uint8Array, offset: number) {
  const first = bytes[offset];
  if (first === undefined)
    throw new Error(
      `it ends before its message (${bytes.length} byte${bytes.length === 1 ? '' : 's'} in all)`,
    );
  const version: 'legacy' | 0 = first & VERSION_FLAG ? versionOf(first & 0x7f) : 'legacy';
  let at = version === 'legacy' ? offset : offset + 1;
  let part: Part = 'header';
  try {
    const [header, afterHeader] = headerDecoder.read(bytes, at);
    part = 'account keys';
    const [staticAccounts, afterAccounts] = accountsDecoder.read(bytes, afterHeader);
    part = 'recent blockhash';
    at = key.read(bytes, afterAccounts)[1]; // routing needs none of it
    part = 'instructions';
    at = instructionsDecoder.read(bytes, at)[1];
    let lookups: ReturnType<typeof lookupsDecoder.decode> = [];
    part = 'address table lookups';
    if (version === 0) [lookups, at] = lookupsDecoder.read(bytes, at);
    return { version, header, staticAccounts, lookups, end: at };
  } catch (err) {
    throw new MalformedPart(part, bytes.length, err);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function readSignatures(bytes: Uint8Array): [ReadonlyUint8Array[], number] {
  try {
    return signaturesDecoder.read(bytes, 0);
  } catch (err) {
    throw new MalformedPart('signatures', bytes.length, err);
  }
}

/** The bytes of a wire transaction in `encoding`; Agave's default is base58. */
function wireBytes(wire: string, encoding: 'base58' | 'base64'): Uint8Array {
  if (encoding === 'base64') {
    if (wire.length % 4 !== 0 || !BASE64.test(wire)) throw new Error('not base64');
    return Buffer.from(wire, 'base64');
  }
  return new Uint8Array(base58.encode(wire));
}

/** The writable static keys of a message, in message order, as text. */
function writableStaticOf(message: ReturnType<typeof readMessage>): string[] {
  const { header, staticAccounts } = message;
  const signers = header.numSignerAccounts;
  return staticAccounts
    .filter((_, i) =>
      i < signers
        ? i < signers - header.numReadonlySignerAccounts
        : i < staticAccounts.length - header.numReadonlyNonSignerAccounts,
    )
    .map(keyText);
}

const lookupsOf = (message: ReturnType<typeof readMessage>): TableLookup[] =>
  message.lookups.map((l) => ({ table: keyText(l.lookupTableAddress), writableIndexes: l.writableIndexes }));

/** Why a message read from `bytes` is not one, if so. */
function messageIssue(message: ReturnType<typeof readMessage>, length: number): string | undefined {
  if (message.end !== length) return `${length - message.end} bytes after the message`;
  const signers = message.header.numSignerAccounts;
  const accounts = message.staticAccounts.length;
  if (signers < 1 || signers > accounts) return `the header names ${signers} signers of ${accounts} accounts`;
  return undefined;
}

/** What routing needs of a transaction's or a message's accounts. */
export interface RoutedAccounts {
  /** The writable accounts among the static keys, in message order. */
  readonly writableStatic: readonly string[];
  /** Writable accounts held in lookup tables (v0), still to be resolved from the base chain. */
  readonly lookups: readonly TableLookup[];
}

export type DecodedMessage =
  { readonly ok: true; readonly message: RoutedAccounts } | { readonly ok: false; readonly reason: string };

/** Decodes a wire message (getFeeForMessage's, base64) and takes what routing needs. Never throws. */
export function decodeWireMessage(wire: string): DecodedMessage {
  let bytes: Uint8Array;
  try {
    bytes = wireBytes(wire, 'base64');
  } catch (err) {
    return { ok: false, reason: `the message is not base64: ${(err as Error).message}` };
  }
  try {
    const message = readMessage(bytes, 0);
    const issue = messageIssue(message, bytes.length);
    if (issue !== undefined) return { ok: false, reason: issue };
    return { ok: true, message: { writableStatic: writableStaticOf(message), lookups: lookupsOf(message) } };
  } catch (err) {
    return { ok: false, reason: `not a legacy or v0 message: ${(err as Error).message}` };
  }
}

/**
 * Decodes a signed wire transaction (legacy or v0) with @solana/kit's codecs and takes
 * what routing needs. Never throws: anything that is not such a transaction is a reason.
 * `unsigned` accepts a fee payer without a signature, as simulateTransaction does.
 */
export function decodeWireTransaction(
  wire: string,
  encoding: 'base58' | 'base64',
  unsigned: 'unsigned' | undefined = undefined,
): DecodedWire {
  let bytes: Uint8Array;
  try {
    bytes = wireBytes(wire, encoding);
  } catch (err) {
    return { ok: false, reason: `the transaction is not ${encoding}: ${(err as Error).message}` };
  }
  try {
    const [signatures, messageStart] = readSignatures(bytes);
    const message = readMessage(bytes, messageStart);
    const issue = messageIssue(message, bytes.length);
    if (issue !== undefined)
      return { ok: false, reason: issue.replace('after the message', 'after the transaction') };
    const signers = message.header.numSignerAccounts;
    if (signatures.length !== signers) {
      return { ok: false, reason: `${signatures.length} signatures for ${signers} signers` };
    }
    const writableStatic = writableStaticOf(message);
    const feePayerSignature = signatures[0]!;
    if (unsigned === undefined && feePayerSignature.every((b) => b === 0))
      return { ok: false, reason: 'the fee payer has no signature' };
    const lookups = lookupsOf(message);
    // base58 on demand (a simulation never needs it), once: a send compares, remembers and tracks it.
    let signature: string | undefined;
    return {
      ok: true,
      tx: {
        get signature() {
          return (signature ??= base58Text.decode(feePayerSignature));
        },
        signed: {
          feePayer: message.staticAccounts[0]!,
          signature: feePayerSignature,
          message: bytes.subarray(messageStart, message.end),
        },
        version: message.version,
        writableStatic,
        lookups,
      },
    };
  } catch (err) {
    return { ok: false, reason: `not a legacy or v0 transaction: ${(err as Error).message}` };
  }
}
