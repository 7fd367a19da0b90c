import { expect } from 'chai';
import fc from 'fast-check';
import bs58 from 'bs58';
import {
  Keypair,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import {
  fixDecoderSize,
  getArrayDecoder,
  getBytesDecoder,
  getCompiledTransactionMessageDecoder,
  getShortU16Decoder,
} from '@solana/kit';
import { decodeWireTransaction } from '../src/index.js';

const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(7));
const key = () => Keypair.generate().publicKey;

/** One instruction touching accounts in every role. */
function roles() {
  const payer = Keypair.generate();
  const readonlySigner = Keypair.generate();
  const [writable, readonly, program] = [key(), key(), key()];
  const ix = new TransactionInstruction({
    programId: program,
    keys: [
      { pubkey: readonlySigner.publicKey, isSigner: true, isWritable: false },
      { pubkey: writable, isSigner: false, isWritable: true },
      { pubkey: readonly, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1, 2, 3]),
  });
  return { payer, readonlySigner, writable, ix };
}

describe('decodeWireTransaction', () => {
  it('takes the writable static keys and the signature of a legacy transaction, base58 and base64', () => {
    const { payer, readonlySigner, writable, ix } = roles();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(ix);
    tx.sign(payer, readonlySigner);
    const wire = tx.serialize();
    for (const [text, encoding] of [
      [bs58.encode(wire), 'base58'],
      [wire.toString('base64'), 'base64'],
    ] as const) {
      const decoded = decodeWireTransaction(text, encoding);
      expect(decoded).to.deep.equal({
        ok: true,
        tx: {
          signature: bs58.encode(tx.signature!),
          signed: {
            feePayer: new Uint8Array(payer.publicKey.toBytes()),
            signature: new Uint8Array(tx.signature!),
            message: new Uint8Array(tx.serializeMessage()),
          },
          version: 'legacy',
          writableStatic: [payer.publicKey.toBase58(), writable.toBase58()],
          lookups: [],
        },
      });
    }
  });

  it('takes the writable static keys and the lookups of a v0 transaction', () => {
    const { payer, readonlySigner, writable, ix } = roles();
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: [ix],
    }).compileToV0Message();
    const table = key();
    message.addressTableLookups.push({ accountKey: table, writableIndexes: [3, 1], readonlyIndexes: [0] });
    const tx = new VersionedTransaction(message);
    tx.sign([payer, readonlySigner]);
    const decoded = decodeWireTransaction(Buffer.from(tx.serialize()).toString('base64'), 'base64');
    expect(decoded).to.deep.equal({
      ok: true,
      tx: {
        signature: bs58.encode(tx.signatures[0]!),
        signed: {
          feePayer: new Uint8Array(payer.publicKey.toBytes()),
          signature: new Uint8Array(tx.signatures[0]!),
          message: new Uint8Array(tx.message.serialize()),
        },
        version: 0,
        writableStatic: [payer.publicKey.toBase58(), writable.toBase58()],
        lookups: [{ table: table.toBase58(), writableIndexes: [3, 1] }],
      },
    });
  });

  it('never throws on any text in either encoding', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.constantFrom('base58', 'base64'), (text, encoding) => {
        const decoded = decodeWireTransaction(text, encoding as 'base58' | 'base64');
        if (!decoded.ok) expect(decoded.reason).to.be.a('string');
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const decoded = decodeWireTransaction(Buffer.from(bytes).toString('base64'), 'base64');
        if (!decoded.ok) expect(decoded.reason).to.be.a('string');
      }),
    );
  });
});

/**
 * What kit's own decoders make of the same bytes, with the rules decodeWireTransaction
 * applies: the reference the codecs-built reader must agree with, byte for byte.
 */
function kitReading(bytes: Uint8Array): { writableStatic: string[]; lookups: unknown[] } | undefined {
  try {
    const [signatures, at] = getArrayDecoder(fixDecoderSize(getBytesDecoder(), 64), {
      size: getShortU16Decoder(),
    }).read(bytes, 0);
    const [message, end] = getCompiledTransactionMessageDecoder().read(bytes, at);
    if (end !== bytes.length || (message.version !== 'legacy' && message.version !== 0)) return undefined;
    const { header, staticAccounts } = message;
    const signers = header.numSignerAccounts;
    if (signers < 1 || signers > staticAccounts.length || signatures.length !== signers) return undefined;
    if (signatures[0]!.every((b) => b === 0)) return undefined;
    return {
      writableStatic: staticAccounts.filter((_, i) =>
        i < signers
          ? i < signers - header.numReadonlySignerAccounts
          : i < staticAccounts.length - header.numReadonlyNonSignerAccounts,
      ),
      lookups:
        message.version === 0
          ? (message.addressTableLookups ?? []).map((l) => ({
              table: l.lookupTableAddress,
              writableIndexes: l.writableIndexes,
            }))
          : [],
    };
  } catch {
    return undefined;
  }
}

/** A signed transaction of `accounts` in random roles, legacy or v0 with random lookups. */
const anyTransaction = fc
  .record({
    roles: fc.array(fc.record({ signer: fc.boolean(), writable: fc.boolean() }), { maxLength: 6 }),
    instructions: fc.integer({ min: 1, max: 3 }),
    v0: fc.boolean(),
    lookups: fc.array(
      fc.record({
        writable: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 }),
        readonly: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ roles, instructions, v0, lookups }) => {
    const payer = Keypair.generate();
    const signers = roles.map((r) => (r.signer ? Keypair.generate() : undefined));
    const keys = roles.map((r, i) => ({
      pubkey: signers[i]?.publicKey ?? key(),
      isSigner: r.signer,
      isWritable: r.writable,
    }));
    const ixs = Array.from({ length: instructions }, (_, i) => {
      return new TransactionInstruction({ programId: key(), keys, data: Buffer.alloc(i * 3, i) });
    });
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: ixs,
    });
    const compiled = v0 ? message.compileToV0Message() : message.compileToLegacyMessage();
    if (v0)
      for (const l of lookups)
        compiled.addressTableLookups.push({
          accountKey: key(),
          writableIndexes: l.writable,
          readonlyIndexes: l.readonly,
        });
    const tx = new VersionedTransaction(compiled);
    tx.sign([payer, ...signers.filter((s) => s !== undefined)]);
    return tx.serialize();
  });

describe('decodeWireTransaction against kit’s own transaction decoders', () => {
  it('reads every transaction as kit does: the same writable keys and lookups', () => {
    fc.assert(
      fc.property(anyTransaction, (wire) => {
        const expected = kitReading(wire);
        expect(expected).to.not.equal(undefined);
        const decoded = decodeWireTransaction(Buffer.from(wire).toString('base64'), 'base64');
        expect(
          decoded.ok && { writableStatic: decoded.tx.writableStatic, lookups: decoded.tx.lookups },
        ).to.deep.equal(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("a transaction cut short says in which of its parts, in its own terms, not the codecs'", () => {
    const payer = Keypair.generate();
    const ix = new TransactionInstruction({
      programId: key(),
      keys: [{ pubkey: key(), isSigner: false, isWritable: true }],
      data: Buffer.from([1]),
    });
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(ix);
    tx.sign(payer);
    const wire = tx.serialize();
    // 1 signature count byte, 64 of signature, 3 of header, 1 key count byte, then the keys.
    const cuts: [number, string][] = [
      [1, 'it ends inside its signatures (1 byte in all)'],
      [65, 'it ends before its message (65 bytes in all)'],
      [67, 'it ends inside its header (67 bytes in all)'],
      [69 + 40, 'it ends inside its account keys (109 bytes in all)'],
    ];
    for (const [length, reason] of cuts) {
      const decoded = decodeWireTransaction(wire.subarray(0, length).toString('base64'), 'base64');
      expect(decoded).to.deep.equal({ ok: false, reason: `not a legacy or v0 transaction: ${reason}` });
    }
    fc.assert(
      // Up to the instructions: the codecs read a count past the end as 0, so a cut instruction
      // can still decode (as kit's own decoder does; the comparison with kit below covers it).
      fc.property(fc.nat({ max: 1 + 64 + 3 + 1 + 3 * 32 + 32 - 1 }), (length) => {
        const decoded = decodeWireTransaction(wire.subarray(0, length).toString('base64'), 'base64');
        expect(decoded.ok).to.equal(false);
        if (!decoded.ok) expect(decoded.reason).not.to.match(/Codec|fixCodecSize|u8/);
      }),
    );
  });

  it('accepts a changed, cut or extended transaction exactly when kit reads it, and then as kit reads it', () => {
    const edits = fc.oneof(
      fc
        .record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) })
        .map((e) => ({ kind: 'set' as const, ...e })),
      fc.nat().map((at) => ({ kind: 'cut' as const, at })),
      fc.uint8Array({ minLength: 1, maxLength: 4 }).map((tail) => ({ kind: 'add' as const, tail })),
    );
    fc.assert(
      fc.property(anyTransaction, fc.array(edits, { minLength: 1, maxLength: 3 }), (wire, changes) => {
        let bytes = Uint8Array.from(wire);
        for (const c of changes) {
          if (c.kind === 'set' && bytes.length > 0) bytes[c.at % bytes.length] = c.byte;
          if (c.kind === 'cut') bytes = bytes.slice(0, c.at % (bytes.length + 1));
          if (c.kind === 'add') bytes = Uint8Array.from([...bytes, ...c.tail]);
        }
        const expected = kitReading(bytes);
        const decoded = decodeWireTransaction(Buffer.from(bytes).toString('base64'), 'base64');
        if (expected === undefined) expect(decoded.ok).to.equal(false);
        else
          expect(
            decoded.ok && { writableStatic: decoded.tx.writableStatic, lookups: decoded.tx.lookups },
          ).to.deep.equal(expected);
      }),
      { numRuns: 500 },
    );
  });
});
