// Single-use sendTransaction bodies for the delegation router's rows: base-chain transfers
// from a payer funded on validator A to one funded recipient, each of a different amount so
// that every signature is new. Made before a row's round with a blockhash read from A then
// (A's slots are 50 ms: a blockhash lasts 150 of them, 7.5 s): the message is compiled once
// per blockhash and only its last 8 bytes (the lamports) change; Node's ed25519 signs.
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { Connection, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { call } from './requests.mjs';

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An ed25519 key pair: Node's private key and the public key web3.js reads. */
function newKeyPair() {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d, 'base64url');
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  return { key, publicKey: new PublicKey(Buffer.from(jwk.x, 'base64url')) };
}

/**
 * A source of transfers on `validatorUrl`. `refill(bodies, n)` replaces the contents of
 * `bodies` with `n` fresh sendTransaction calls (base64, skipPreflight: the rows measure the
 * path, not A's simulation); the first call funds the payer and the recipient.
 */
export function transferSource(validatorUrl) {
  const connection = new Connection(validatorUrl, 'confirmed');
  const payer = newKeyPair();
  const to = newKeyPair().publicKey;
  let funded;
  let lamports = 0; // counts up across every refill: no two transfers are the same
  const fund = async () => {
    for (const account of [payer.publicKey, to]) {
      const signature = await connection.requestAirdrop(account, 5 * LAMPORTS_PER_SOL);
      await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) });
    }
  };
  return {
    async refill(bodies, n) {
      await (funded ??= fund());
      const { blockhash } = await connection.getLatestBlockhash();
      const transfer = SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 0 });
      const message = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash })
        .add(transfer)
        .serializeMessage();
      bodies.length = 0;
      for (let i = 0; i < n; i++) {
        message.writeBigUInt64LE(BigInt(++lamports), message.length - 8);
        const wire = Buffer.concat([Buffer.from([1]), sign(null, message, payer.key), message]);
        bodies.push(
          call('sendTransaction', [wire.toString('base64'), { encoding: 'base64', skipPreflight: true }]),
        );
      }
    },
  };
}
