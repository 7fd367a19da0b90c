// Our getSignatureStatuses next to a real Solana validator (MagicBlock's validator A, the
// offline base chain of the peers folder, PEERS_DIR or ../shared/peers): real transactions, a successful and a failing
// one, then the same lists asked of both. The `value` arrays must be the same.
import { expect } from 'chai';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  type SignatureStatus as Web3SignatureStatus,
} from '@solana/web3.js';
import { createSolanaRpc, signature as toKitSignature } from '@solana/kit';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { randomSignatures } from '@rollup-router/test-support/solana';
import { tempDir } from '@rollup-router/test-support/temp-dir';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { PEERS_DIR } from '@rollup-router/test-support/peers-dir';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';

interface StatusesAnswer {
  result?: { context: { apiVersion: string; slot: number }; value: unknown[] };
  error?: { code: number; message: string };
}

async function rpcCall(url: string, params: unknown): Promise<StatusesAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params }),
    signal: AbortSignal.timeout(10_000),
  });
  return (await res.json()) as StatusesAnswer;
}

describe('getSignatureStatuses against the real validator A', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let served: Served;
  let airdrop: string;
  let success: string;
  let failing: string;
  const layers: [string, number][] = [];

  before(async function () {
    await skipUnlessValidatorA(
      this,
      VALIDATOR,
      ` (set VALIDATOR_A_URL, or start it: bash ${PEERS_DIR}/start-validator.sh a)`,
    );
    const conn = new Connection(VALIDATOR, 'confirmed');
    const payer = Keypair.generate();
    airdrop = await conn.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
    const latest = await conn.getLatestBlockhash();
    await conn.confirmTransaction({ signature: airdrop, ...latest }, 'confirmed');

    const send = async (lamports: number) => {
      const tx = new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports,
        }),
      );
      tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
      tx.feePayer = payer.publicKey;
      tx.sign(payer);
      // skipPreflight: the failing transfer must land on chain, not be refused by simulation.
      return conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    };
    success = await send(1_000_000);
    failing = await send(5 * LAMPORTS_PER_SOL); // more than the payer has

    for (let i = 0; i < 200; i++) {
      const { value } = await conn.getSignatureStatuses([success, failing]);
      if (value.every((s) => s?.confirmationStatus === 'finalized')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    tmp = tempDir();
    served = await serve([
      signatureStatusesPlugin({
        upstreams: [{ url: VALIDATOR }],
        store: { path: tmp.file('statuses.db') },
        onLookup: (layer, n) => layers.push([layer, n]),
      }),
    ]);
  });

  after(async () => {
    await served?.close();
    tmp?.remove();
  });

  it('the failing transfer landed with a real TransactionError in err and status', async () => {
    const theirs = (await rpcCall(VALIDATOR, [[failing]])).result!.value[0] as {
      err: unknown;
      status: unknown;
    };
    expect(theirs.err).to.have.property('InstructionError');
    expect(theirs.status).to.deep.equal({ Err: theirs.err });
    const ours = (await rpcCall(served.url, [[failing]])).result!.value;
    expect(ours).to.deep.equal([theirs]);
  });

  it('known, unknown and duplicate signatures: the same value as the validator, again when served from memory', async () => {
    const [u1, u2] = randomSignatures(2);
    const list = [success, u1, failing, success, airdrop, u2, failing];
    for (let round = 0; round < 2; round++) {
      layers.length = 0;
      const ours = await rpcCall(served.url, [list]);
      const theirs = await rpcCall(VALIDATOR, [list]);
      expect(ours.result?.value).to.deep.equal(theirs.result?.value);
      expect(ours.result?.value.filter((v) => v !== null)).to.have.length(5);
    }
    // The second round found the three known signatures in memory.
    expect(layers).to.deep.include(['memory', 3]);
  });

  it('256 signatures: the same value as the validator; 257: the same error', async () => {
    const list = [success, failing, airdrop, ...randomSignatures(253)];
    const ours = await rpcCall(served.url, [list, { searchTransactionHistory: true }]);
    const theirs = await rpcCall(VALIDATOR, [list, { searchTransactionHistory: true }]);
    expect(ours.result?.value).to.have.length(256);
    expect(ours.result?.value).to.deep.equal(theirs.result?.value);

    const over = [...list, ...randomSignatures(1)];
    expect((await rpcCall(served.url, [over])).error).to.deep.equal((await rpcCall(VALIDATOR, [over])).error);
  });

  it('@solana/web3.js Connection gets the same statuses from our root endpoint as from the validator', async () => {
    const list = [success, ...randomSignatures(1), failing];
    const ours = await new Connection(served.url, 'confirmed').getSignatureStatuses(list);
    const theirs = await new Connection(VALIDATOR, 'confirmed').getSignatureStatuses(list);
    expect(ours.value).to.deep.equal(theirs.value);
    expect(ours.value.map((s: Web3SignatureStatus | null) => s?.err ?? null)[2]).to.have.property(
      'InstructionError',
    );
    const oursHistory = await new Connection(served.url).getSignatureStatuses(list, {
      searchTransactionHistory: true,
    });
    const theirsHistory = await new Connection(VALIDATOR).getSignatureStatuses(list, {
      searchTransactionHistory: true,
    });
    expect(oursHistory.value).to.deep.equal(theirsHistory.value);
  });

  it('@solana/kit rpc.getSignatureStatuses gets the same statuses from our root endpoint as from the validator', async () => {
    const list = [success, ...randomSignatures(1), failing, success].map((s) => toKitSignature(s));
    const ours = await createSolanaRpc(served.url).getSignatureStatuses(list).send();
    const theirs = await createSolanaRpc(VALIDATOR).getSignatureStatuses(list).send();
    expect(ours.value).to.deep.equal(theirs.value);
    expect(ours.value[0]?.confirmationStatus).to.equal('finalized');
    const oursHistory = await createSolanaRpc(served.url)
      .getSignatureStatuses(list, { searchTransactionHistory: true })
      .send();
    expect(oursHistory.value).to.deep.equal(theirs.value);
  });
});
