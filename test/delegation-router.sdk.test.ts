// MagicBlock's SDKs, installed from npm, pointed at the built reference server on the
// real peers: validator A is the base chain (and the MDP registry), validator B the ER
// registered there.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import {
  Connection as Web3Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
} from '@solana/web3.js';
import { ConnectionMagicRouter } from '@magicblock-labs/ephemeral-rollups-sdk';
import { Connection as KitConnection } from '@magicblock-labs/ephemeral-rollups-kit';
import { CHAIN_URL, untilRouted, validatorBIdentity } from '@rollup-router/test-support/mdp';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { serveForSuite } from './server.harness.js';

const run = promisify(execFile);
const KIT_APP = join(import.meta.dirname, 'fixtures/kit-sdk-app.mjs');

const B_URL = 'http://127.0.0.1:18899';
const chainA = new Web3Connection(CHAIN_URL, 'confirmed');

async function fundedKeypair(): Promise<Keypair> {
  const payer = Keypair.generate();
  const sig = await chainA.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
  await chainA.confirmTransaction(sig, 'confirmed');
  return payer;
}

describe('delegation router: the real SDKs against the reference server on the peers', function () {
  this.timeout(60_000);
  const suite = serveForSuite({
    // Validator B registered itself on loopback.
    routes: {
      chain: { url: CHAIN_URL, allowPrivateAddresses: true },
      allowInsecure: true,
      health: { intervalMs: 500 },
    },
    statuses: { store: false },
    websocket: { port: false },
  });
  let url: string;
  let wsEndpoint: string;
  let b: string;

  before(async function () {
    await skipUnlessValidatorA(this, CHAIN_URL);
    b = await validatorBIdentity();
    url = suite.server.base;
    wsEndpoint = url.replace(/^http/, 'ws');
    // The chain source reads the registry after the start: wait until B is listed.
    await untilRouted(url, b);
  });

  it('warns at start that every ER registered on chain is routable (no allow-list)', () => {
    const warning = suite.server
      .logs()
      .find((l) => String(l.msg).startsWith('routes.chain without delegation.identity.allow'));
    expect(warning, 'the warning').to.include({ level: 40 });
  });

  it('the kit SDK recognises the router (getBlockhashForAccounts [[]])', async () => {
    const connection = await KitConnection.create(url);
    expect(connection.isMagicRouter).to.equal(true);
  });

  it('getClosestValidator() names validator B, with its URL', async () => {
    const connection = new ConnectionMagicRouter(url, { wsEndpoint });
    expect(await connection.getClosestValidator()).to.deep.equal({ identity: b, fqdn: B_URL });
  });

  for (const [style, at] of [
    ['the SDK posts it', ''],
    ['with the trailing slash of its docs', '/'],
  ] as const) {
    it(`getDelegationStatus of a fresh account is false (${style})`, async () => {
      const connection = new ConnectionMagicRouter(url + at, { wsEndpoint });
      expect(await connection.getDelegationStatus(Keypair.generate().publicKey)).to.deep.equal({
        isDelegated: false,
      });
    });
  }

  it('getDelegationStatus with an API key in the query string', async () => {
    const res = await fetch(`${url}/?api-key=KEY/getDelegationStatus`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getDelegationStatus',
        params: [Keypair.generate().publicKey.toBase58()],
      }),
    });
    expect(await res.json()).to.deep.equal({ jsonrpc: '2.0', result: { isDelegated: false }, id: 1 });
  });

  it('web3.js: sendAndConfirmTransaction of a base-chain transfer lands on validator A through us', async () => {
    const payer = await fundedKeypair();
    const to = Keypair.generate().publicKey;
    const connection = new ConnectionMagicRouter(url, { wsEndpoint, commitment: 'confirmed' });
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_234_567 }),
    );
    const signature = await connection.sendAndConfirmTransaction(tx, [payer], { commitment: 'confirmed' });
    expect(await chainA.getBalance(to, 'confirmed')).to.equal(1_234_567);
    const status = (await chainA.getSignatureStatus(signature)).value;
    expect(status?.err).to.equal(null);
  });

  it('kit: sendAndConfirmTransaction of a base-chain transfer lands on validator A through us', async () => {
    const { stdout } = await run(process.execPath, [KIT_APP, url, CHAIN_URL], { timeout: 50_000 });
    const app = JSON.parse(stdout.trim()) as Record<string, string | boolean>;
    expect(app.isMagicRouter).to.equal(true);
    expect(app.balanceOnChain).to.equal('7654321');
    expect(app.balanceThroughRouter).to.equal('7654321');
    const status = (await chainA.getSignatureStatus(app.signature as string)).value;
    expect(status?.err).to.equal(null);
  });
});
