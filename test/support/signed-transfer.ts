// A real system transfer on validator A, signed with @solana/kit: what a wallet sends.
import { getTransferSolInstruction } from '@solana-program/system';
import {
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { CHAIN_URL } from './mdp.js';

export interface SignedTransfer {
  /** Base64 wire form, as sendTransaction takes it with `encoding: 'base64'`. */
  readonly wire: Base64EncodedWireTransaction;
  readonly signature: Signature;
}

/** `payer` sends a rent-exempt amount to a fresh account, on a blockhash A has now. */
export async function signedTransfer(payer: KeyPairSigner): Promise<SignedTransfer> {
  const to = await generateKeyPairSigner();
  const instruction = getTransferSolInstruction({
    source: payer,
    destination: to.address,
    amount: lamports(1_000_000n),
  });
  const { value: blockhash } = await createSolanaRpc(CHAIN_URL).getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstruction(instruction, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}
