// Transactions for routing tests: a transfer that also writes a chosen account (routing
// reads its writable accounts), signed or not, and a copy carrying another's signature.
import bs58 from 'bs58';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';

/** Any 32 bytes do as a blockhash where no chain checks it. */
export const TEST_BLOCKHASH = bs58.encode(new Uint8Array(32).fill(3));

export interface Transfer {
  readonly tx: Transaction;
  /** The wire bytes, base64. */
  readonly wire: string;
  /** The fee payer's signature, base58 (undefined unsigned). */
  readonly signature: string | undefined;
}

/** A transfer from a new payer whose instruction also writes `writable`. */
export function transferWriting(
  writable: string,
  options: { signed?: boolean; blockhash?: string } = {},
): Transfer {
  const payer = Keypair.generate();
  const tx = new Transaction({
    feePayer: payer.publicKey,
    recentBlockhash: options.blockhash ?? TEST_BLOCKHASH,
  }).add(
    SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1,
    }),
  );
  tx.instructions[0]!.keys.push({ pubkey: new PublicKey(writable), isSigner: false, isWritable: true });
  if (options.signed === false) {
    return {
      tx,
      wire: tx.serialize({ requireAllSignatures: false }).toString('base64'),
      signature: undefined,
    };
  }
  tx.sign(payer);
  return { tx, wire: tx.serialize().toString('base64'), signature: bs58.encode(tx.signature!) };
}

/** `wire` (base64) with its fee payer's signature replaced by `signature`: a copy no fee payer signed. */
export function withSignature(wire: string, signature: string): string {
  const bytes = Buffer.from(wire, 'base64');
  Buffer.from(bs58.decode(signature)).copy(bytes, 1);
  return bytes.toString('base64');
}
