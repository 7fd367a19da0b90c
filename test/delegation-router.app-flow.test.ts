// An app's whole flow with the router as its only connection, as MagicBlock's SDKs make
// it: airdrop, rent, account creation, simulation, fees, reads, its program's accounts, its
// history, blocks and the cluster, with web3.js and with kit, unchanged, over HTTP and
// the router's WebSocket. Validator A is the base chain.
import { expect } from 'chai';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import {
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  assertIsTransactionWithBlockhashLifetime,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { closeWeb3Socket } from '@rollup-router/test-support/web3-socket';
import { serveWith, tempDir, type ServerProcess } from './server.harness.js';

const SPACE = 100;

describe('an app whose only connection is the router (validator A as the base chain)', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let dir: ReturnType<typeof tempDir>;
  let http: string;
  let ws: string;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: { routes: [] },
      delegation: { baseChain: { url: VALIDATOR_A } },
      statuses: { store: false },
      websocket: { port: false },
    });
    http = server.base;
    ws = http.replace(/^http/, 'ws');
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
  });

  it('web3.js: funds itself, creates a rent-exempt account, reads it, lists it, finds it in its history and its block', async () => {
    const connection = new Connection(http, { commitment: 'confirmed', wsEndpoint: ws });
    const payer = Keypair.generate();
    await connection.confirmTransaction(
      await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL),
      'confirmed',
    );
    expect(await connection.getBalance(payer.publicKey)).to.equal(LAMPORTS_PER_SOL);
    // web3.js turns an error here into 0: an app would then create accounts with no rent.
    const rent = await connection.getMinimumBalanceForRentExemption(SPACE);
    expect(rent).to.equal(await new Connection(VALIDATOR_A).getMinimumBalanceForRentExemption(SPACE));
    expect(rent).to.be.greaterThan(0);

    const program = Keypair.generate().publicKey;
    const account = Keypair.generate();
    const create = new Transaction().add(
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: account.publicKey,
        lamports: rent,
        space: SPACE,
        programId: program,
      }),
    );
    create.feePayer = payer.publicKey;
    create.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
    const message = create.compileMessage();
    expect((await connection.getFeeForMessage(message)).value).to.equal(
      (await new Connection(VALIDATOR_A).getFeeForMessage(message)).value,
    );
    const simulated = await connection.simulateTransaction(create, [payer, account]);
    expect(simulated.value.err).to.equal(null);
    const signature = await sendAndConfirmTransaction(connection, create, [payer, account]);

    const info = await connection.getAccountInfo(account.publicKey);
    expect(info?.owner.toBase58()).to.equal(program.toBase58());
    expect(info?.lamports).to.equal(rent);
    expect(info?.data.length).to.equal(SPACE);
    const listed = await connection.getProgramAccounts(program);
    expect(listed.map((a) => a.pubkey.toBase58())).to.deep.equal([account.publicKey.toBase58()]);
    const history = await connection.getSignaturesForAddress(account.publicKey);
    expect(history.map((h) => h.signature)).to.include(signature);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.err).to.equal(null);
    // The validator may write a confirmed block to its ledger a moment after the transaction's status.
    const block = await waitFor(
      async () =>
        (await connection.getBlock(landed!.slot, { maxSupportedTransactionVersion: 0 })) ?? undefined,
      'its block in the ledger',
    );
    expect(block.transactions.map((t) => t.transaction.signatures[0])).to.include(signature);

    expect(await connection.getGenesisHash()).to.equal(await new Connection(VALIDATOR_A).getGenesisHash());
    expect((await connection.getEpochInfo()).absoluteSlot).to.be.greaterThan(0);
    expect(await connection.getVersion()).to.have.property('solana-core');
    await closeWeb3Socket(connection);
  });

  it('kit: funds itself, creates a rent-exempt account, reads it and lists it, over HTTP and WebSocket', async () => {
    const rpc = createSolanaRpc(http);
    const rpcSubscriptions = createSolanaRpcSubscriptions(ws);
    const payer = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions })({
      recipientAddress: payer.address,
      lamports: lamports(1_000_000_000n),
      commitment: 'confirmed',
    });
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(SPACE)).send();
    expect(rent > 0n).to.equal(true);

    const program = address(Keypair.generate().publicKey.toBase58());
    const account = await generateKeyPairSigner();
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const signed = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) =>
        appendTransactionMessageInstruction(
          getCreateAccountInstruction({
            payer,
            newAccount: account,
            lamports: rent,
            space: SPACE,
            programAddress: program,
          }),
          m,
        ),
      (m) => signTransactionMessageWithSigners(m),
    );
    const simulated = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' })
      .send();
    expect(simulated.value.err).to.equal(null);
    assertIsTransactionWithBlockhashLifetime(signed);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signed, { commitment: 'confirmed' });

    const { value: info } = await rpc.getAccountInfo(account.address, { encoding: 'base64' }).send();
    expect(info?.owner).to.equal(program);
    expect(info?.lamports).to.equal(rent);
    // kit reads u64s as bigints: the router's bytes are A's, so rentEpoch is u64::MAX exactly.
    expect((info as { rentEpoch?: bigint } | null)?.rentEpoch).to.equal(2n ** 64n - 1n);
    const listed = await rpc.getProgramAccounts(program, { encoding: 'base64' }).send();
    expect(listed.map((a) => a.pubkey)).to.deep.equal([account.address]);
    const history = await rpc.getSignaturesForAddress(account.address).send();
    expect(history.map((h) => h.signature)).to.include(getSignatureFromTransaction(signed));
  });
});
