// A relayed accountSubscribe catches up after its upstream websocket reconnects: validator A
// is the base chain, its websocket reached through a TCP proxy that a test cuts while the
// account changes (real airdrops on A). Once the subscription is acknowledged again, the
// account is read and its clients notified of the change they would otherwise never see.
import { expect } from 'chai';
import { Connection, Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import type { RunningServer } from '@rollup-router/server';
import { tcpProxy, type TcpProxy } from '@rollup-router/test-support/tcp-proxy';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';
import { WsFrameTap } from '@rollup-router/test-support/ws-frames';
import { startWith } from '@rollup-router/test-support/ws-server';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';
const VALIDATOR_WS = process.env.VALIDATOR_A_WS ?? 'ws://127.0.0.1:17800';

type Notified = { context: { slot: number }; value: { lamports: number } | null };

describe('relayed accountSubscribe: catch-up after the upstream websocket reconnects (validator A)', function () {
  this.timeout(120_000);
  let server: (RunningServer & { cleanup(): void }) | undefined;
  let wsProxy: TcpProxy;
  let tap: WsFrameTap;
  let conn: Connection;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    conn = new Connection(VALIDATOR, 'confirmed');
    const aWs = new URL(VALIDATOR_WS);
    tap = new WsFrameTap();
    wsProxy = await tcpProxy({ host: aWs.hostname, port: Number(aWs.port) }, { onData: tap.onData });
    server = await startWith({
      host: '127.0.0.1',
      routes: { routes: [] },
      delegation: { baseChain: { url: VALIDATOR, wsUrl: `ws://127.0.0.1:${wsProxy.port}` } },
    });
  });

  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await wsProxy?.close();
  });

  const airdrop = async (to: Keypair, lamports: number): Promise<void> => {
    const signature = await conn.requestAirdrop(to.publicKey, lamports);
    await conn.confirmTransaction({ signature, ...(await conn.getLatestBlockhash()) }, 'confirmed');
  };
  const upstreamSubscribes = (pubkey: string) =>
    tap.sent('accountSubscribe').filter((m) => (m.params as unknown[])[0] === pubkey);
  /** The next accountNotification on `s` (answers to other calls skipped). */
  const nextNotification = async (s: TestSocket): Promise<Frame> => {
    for (;;) {
      const frame = await s.next(30_000);
      if (frame.method === 'accountNotification') return frame;
    }
  };

  it('a change made while the websocket was down is notified once it is back, with the account as read', async () => {
    const account = Keypair.generate();
    const pubkey = account.publicKey.toBase58();
    const client = await TestSocket.open(server!.websocketUrl!);
    try {
      const answer = await client.call(
        'accountSubscribe',
        // processed: the validator notifies it at once, so the change cannot reach a
        // subscription renewed after it (a confirmed one may: its notice lags the status).
        [pubkey, { encoding: 'base64', commitment: 'processed' }],
        1,
      );
      const id = answer.result as number;
      expect(id, JSON.stringify(answer)).to.be.a('number');
      await airdrop(account, LAMPORTS_PER_SOL);
      const first = (await nextNotification(client)).params!.result as Notified;
      expect(first.value?.lamports).to.equal(LAMPORTS_PER_SOL);

      const before = wsProxy.accepted;
      await wsProxy.close();
      try {
        await airdrop(account, 2 * LAMPORTS_PER_SOL);
        const landed = await conn.getSlot('processed');
        await waitFor(async () => (await conn.getSlot('processed')) > landed + 4, 'a few slots past it');
      } finally {
        await wsProxy.open();
      }
      await waitFor(
        () => upstreamSubscribes(pubkey).some((m) => m.connection > before),
        'the subscription renewed on the new upstream socket',
        { attempts: 3000, stepMs: 10 },
      );
      const caught = await nextNotification(client);
      expect(caught.params!.subscription).to.equal(id);
      const result = caught.params!.result as Notified;
      expect(result.value?.lamports).to.equal(3 * LAMPORTS_PER_SOL);
      expect(result.context.slot).to.be.at.least(first.context.slot);
    } finally {
      await client.close();
    }
  });
});
