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
