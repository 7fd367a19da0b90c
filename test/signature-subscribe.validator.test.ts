// signatureSubscribe through our socket next to validator A's own (the offline base chain of
// ../shared/peers from the repository root, or PEERS_DIR): real transactions, real clients (@solana/kit, @solana/web3.js v1).
// Our notifications must equal the validator's, and come within 1 s of them.
import { expect } from 'chai';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  type Context,
  type SignatureResult,
} from '@solana/web3.js';
import { createSolanaRpcSubscriptions, signature as toKitSignature } from '@solana/kit';
import bs58 from 'bs58';
import type { RunningServer } from '@rollup-router/server';
import { freePortPair } from '@rollup-router/test-support/reusable-port';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';
import { startWith } from '@rollup-router/test-support/ws-server';
import { closeWeb3Socket } from '@rollup-router/test-support/web3-socket';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';
const VALIDATOR_WS = process.env.VALIDATOR_A_WS ?? 'ws://127.0.0.1:17800';

/** A signed transfer not sent yet: its signature is known before the validator sees it. */
async function transfer(
  conn: Connection,
  payer: Keypair,
  lamports: number,
): Promise<{ sig: string; raw: Buffer }> {
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }),
  );
  tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
  tx.feePayer = payer.publicKey;
  tx.sign(payer);
  return { sig: bs58.encode(tx.signature!), raw: tx.serialize() };
}

const subscribeFrame = (sig: string, config?: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'signatureSubscribe',
    params: config ? [sig, config] : [sig],
  });

/** Subscribes on a raw socket; resolves with the notification frame and when it came. */
async function rawSubscription(
  url: string,
  sig: string,
  config: unknown,
): Promise<{ notified: Promise<{ frame: Frame; at: number }> }> {
  const socket = await TestSocket.open(url);
  socket.send(subscribeFrame(sig, config));
  const first = await socket.next();
  // The validator may send a notification due at once before its answer to the subscribe.
  const noted = (frame: Frame) => {
    const at = performance.now();
    void socket.close();
    return { frame, at };
  };
  if (first.method === 'signatureNotification') {
    const ack = await socket.next();
    expect(ack.result, JSON.stringify(ack)).to.be.a('number');
    return { notified: Promise.resolve(noted(first)) };
  }
  expect(first.result, JSON.stringify(first)).to.be.a('number');
  // Wrapped: an async function returning the promise itself would wait for the notification.
  return { notified: socket.next(30_000).then(noted) };
}

describe('signatureSubscribe against the real validator A', function () {
  this.timeout(90_000);
  let server: (RunningServer & { cleanup(): void }) | undefined;
  let conn: Connection;
  let payer: Keypair;
  const latencies: number[] = [];

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    conn = new Connection(VALIDATOR, 'confirmed');
    payer = Keypair.generate();
    const airdrop = await conn.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
    await conn.confirmTransaction({ signature: airdrop, ...(await conn.getLatestBlockhash()) }, 'confirmed');
    const port = await freePortPair();
    server = await startWith({ port, host: '127.0.0.1', statuses: { upstreams: [{ url: VALIDATOR }] } });
  });

  after(async () => {
    if (latencies.length > 0)
      console.log(
        `      ours after the validator's: ${latencies.map((l) => `${l.toFixed(0)} ms`).join(', ')}`,
      );
    await server?.shutdown(0);
    server?.cleanup();
  });

  /** Subscribes through kit on both, and raw on both, then sends; returns what each saw. */
  async function compare(lamports: number) {
    const { sig, raw } = await transfer(conn, payer, lamports);
    const ws = server!.websocketUrl!;
    const abort = new AbortController();
    const kitOn = async (url: string) => {
      const it = await createSolanaRpcSubscriptions(url)
        .signatureNotifications(toKitSignature(sig), { commitment: 'finalized' })
        .subscribe({ abortSignal: abort.signal });
      // Only the first notification is read: returning from a for-await would wait on the iterator's end.
      // Wrapped: an async function returning the promise itself would wait for the notification.
      return {
        first: it[Symbol.asyncIterator]()
          .next()
          .then((r) => r.value),
      };
    };
    const [kitOurs, kitTheirs] = await Promise.all([kitOn(ws), kitOn(VALIDATOR_WS)]);
    const rawOurs = await rawSubscription(ws, sig, { commitment: 'finalized' });
    const rawTheirs = await rawSubscription(VALIDATOR_WS, sig, { commitment: 'finalized' });
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const theirs = await rawTheirs.notified;
    // Bounded wait: ours must come within 1 s of the validator's own notification.
    const ours = await Promise.race([
      rawOurs.notified,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('ours not within 1 s of theirs')), 1000),
      ),
    ]);
    latencies.push(Math.max(0, ours.at - theirs.at));
    const [k1, k2] = await Promise.all([kitOurs.first, kitTheirs.first]);
    abort.abort();
    return { sig, ours: ours.frame, theirs: theirs.frame, kitOurs: k1, kitTheirs: k2 };
  }

  it("@solana/kit signatureNotifications(finalized), subscribed before the transfer is sent: equal to the validator's", async () => {
    const r = await compare(1_000_000);
    expect(r.ours.method).to.equal('signatureNotification');
    expect(r.ours.params!.result).to.deep.equal(r.theirs.params!.result);
    expect(r.ours.params!.result).to.have.nested.property('value.err', null);
    expect(r.kitOurs).to.deep.equal(r.kitTheirs);
  });

  it('a failing transfer: the same notification, err carrying the real InstructionError', async () => {
    const r = await compare(5 * LAMPORTS_PER_SOL);
    expect(r.ours.params!.result).to.deep.equal(r.theirs.params!.result);
    expect(r.ours.params!.result).to.have.nested.property('value.err.InstructionError');
    expect(r.kitOurs).to.deep.equal(r.kitTheirs);
  });

  it('a signature already finalized is notified at once, as by the validator', async () => {
    const { sig, raw } = await transfer(conn, payer, 1_000_002);
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    for (let i = 0; i < 200; i++) {
      const { value } = await conn.getSignatureStatuses([sig]);
      if (value[0]?.confirmationStatus === 'finalized') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const [ours, theirs] = await Promise.all([
      rawSubscription(server!.websocketUrl!, sig, undefined),
      rawSubscription(VALIDATOR_WS, sig, undefined),
    ]);
    expect((await ours.notified).frame.params!.result).to.deep.equal(
      (await theirs.notified).frame.params!.result,
    );
  });

  it('@solana/web3.js v1 Connection(http://host:PORT) with no wsEndpoint: onSignature works through PORT + 1', async () => {
    const ours = new Connection(server!.url, 'confirmed');
    const theirs = new Connection(VALIDATOR, 'confirmed');
    const { sig, raw } = await transfer(conn, payer, 1_000_003);
    const heard = (c: Connection) =>
      new Promise<[SignatureResult, Context]>((resolve) => {
        c.onSignature(sig, (result, context) => resolve([result, context]), 'finalized');
      });
    const [o, t] = [heard(ours), heard(theirs)];
    // Both subscribed (web3.js subscribes lazily, on its socket's open).
    await new Promise((r) => setTimeout(r, 500));
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    expect(await o).to.deep.equal(await t);
    await closeWeb3Socket(ours);
    const wsPort = Number(new URL(server!.websocketUrl!).port);
    expect(wsPort).to.equal(server!.port + 1);
  });

  it('unsubscribe answers true, then -32602 "Invalid subscription id." as the validator; bad params -32602', async () => {
    const c = await TestSocket.open(server!.websocketUrl!);
    const { sig } = await transfer(conn, payer, 1_000_004);
    c.send(subscribeFrame(sig));
    const id = (await c.next()).result;
    expect(await c.call('signatureUnsubscribe', [id], 2)).to.deep.equal({
      jsonrpc: '2.0',
      result: true,
      id: 2,
    });
    expect(await c.call('signatureUnsubscribe', [id], 3)).to.deep.equal({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid subscription id.' },
      id: 3,
    });
    for (const params of [['not-base58!'], [], [sig, { commitment: 'bogus' }], [sig, 1], 'x']) {
      expect((await c.call('signatureSubscribe', params, 4)).error, JSON.stringify(params)).to.include({
        code: -32602,
      });
    }
    expect((await c.call('getRoutes', undefined, 5)).result).to.be.an('array');
    await c.close();
  });
});
