// signatureSubscribe relayed to validator A's own websocket (the offline base chain of
// ../shared/peers, or PEERS_DIR), through TCP proxies that count what passes: the router
// is configured with the HTTP proxy's URL only, so it finds the websocket at port + 1 the
// way @solana/web3.js does. Real transfers, real sockets, nothing of ours mocked.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { RunningServer } from '@rollup-router/server';
import { heapAfterGc } from '@rollup-router/test-support/heap-after-gc';
import { freePortPair } from '@rollup-router/test-support/reusable-port';
import { tcpProxy, type TcpProxy } from '@rollup-router/test-support/tcp-proxy';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';
import { WsFrameTap } from '@rollup-router/test-support/ws-frames';
import { startWith } from '@rollup-router/test-support/ws-server';
import { WebSocketServer } from 'ws';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';
const VALIDATOR_WS = process.env.VALIDATOR_A_WS ?? 'ws://127.0.0.1:17800';

async function transfer(conn: Connection, payer: Keypair, lamports: number) {
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }),
  );
  tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
  tx.feePayer = payer.publicKey;
  tx.sign(payer);
  return { sig: bs58.encode(tx.signature!), raw: tx.serialize() };
}

/** Subscribes on `socket` with request id `id`; resolves with the subscription id. */
async function subscribe(socket: TestSocket, sig: string, commitment: string, id = 1): Promise<number> {
  const answer = await socket.call('signatureSubscribe', [sig, { commitment }], id);
  expect(answer.result, JSON.stringify(answer)).to.be.a('number');
  return answer.result as number;
}

describe('signatureSubscribe relayed to the upstream websocket (validator A through a proxy)', function () {
  this.timeout(120_000);
  let server: (RunningServer & { cleanup(): void }) | undefined;
  let httpProxy: TcpProxy;
  let wsProxy: TcpProxy;
  let tap: WsFrameTap;
  let conn: Connection;
  let payer: Keypair;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    conn = new Connection(VALIDATOR, 'confirmed');
    payer = Keypair.generate();
    const airdrop = await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL);
    await conn.confirmTransaction({ signature: airdrop, ...(await conn.getLatestBlockhash()) }, 'confirmed');
    const port = await freePortPair();
    const a = new URL(VALIDATOR);
    const aWs = new URL(VALIDATOR_WS);
    tap = new WsFrameTap();
    httpProxy = await tcpProxy({ host: a.hostname, port: Number(a.port) }, { port });
    wsProxy = await tcpProxy(
      { host: aWs.hostname, port: Number(aWs.port) },
      { port: port + 1, onData: tap.onData },
    );
    server = await startWith({
      host: '127.0.0.1',
      statuses: { upstreams: [{ url: `http://127.0.0.1:${port}`, name: 'validator-a' }] },
    });
  });

  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await httpProxy?.close();
    await wsProxy?.close();
  });

  /** Upstream subscribe frames for `sig` so far. */
  const upstreamSubscribes = (sig: string) =>
    tap.sent('signatureSubscribe').filter((m) => (m.params as unknown[])[0] === sig);

  it('many clients on one signature: one upstream subscription; each client gets exactly one notification, equal to the validator’s', async () => {
    const { sig, raw } = await transfer(conn, payer, 1_000_000);
    const sockets = await Promise.all(
      Array.from({ length: 5 }, () => TestSocket.open(server!.websocketUrl!)),
    );
    // 5 sockets x 4 subscriptions: 20 clients on one (signature, commitment).
    const ids: number[][] = [];
    for (const socket of sockets) {
      const mine: number[] = [];
      for (let i = 0; i < 4; i++) mine.push(await subscribe(socket, sig, 'confirmed', i + 1));
      ids.push(mine);
    }
    await waitFor(() => upstreamSubscribes(sig).length > 0, 'the upstream subscription');
    const own = await TestSocket.open(VALIDATOR_WS);
    await subscribe(own, sig, 'confirmed');
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const reference = await own.next(30_000);
    await own.close();
    for (const [s, socket] of sockets.entries()) {
      const got = new Map<number, Frame>();
      for (let i = 0; i < 4; i++) {
        const frame = await socket.next(30_000);
        expect(frame.method).to.equal('signatureNotification');
        expect(frame.params!.result).to.deep.equal(reference.params!.result);
        got.set(frame.params!.subscription as number, frame);
      }
      expect([...got.keys()].sort()).to.deep.equal([...ids[s]!].sort());
      // Nothing more on this socket: the next frame is the answer to this call, no second notification.
      expect((await socket.call('signatureUnsubscribe', [ids[s]![0]], 99)).error).to.include({
        code: -32602,
      });
      await socket.close();
    }
    expect(upstreamSubscribes(sig)).to.have.length(1);
  });

  it('a failing transaction: the relayed notification carries the validator’s InstructionError, equal to its own', async () => {
    const { sig, raw } = await transfer(conn, payer, 50 * LAMPORTS_PER_SOL);
    const ours = await TestSocket.open(server!.websocketUrl!);
    await subscribe(ours, sig, 'confirmed');
    await waitFor(() => upstreamSubscribes(sig).length > 0, 'the upstream subscription');
    const own = await TestSocket.open(VALIDATOR_WS);
    await subscribe(own, sig, 'confirmed');
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const [o, t] = await Promise.all([ours.next(30_000), own.next(30_000)]);
    expect(o.params!.result).to.deep.equal(t.params!.result);
    expect(o.params!.result).to.have.nested.property('value.err.InstructionError');
    await Promise.all([ours.close(), own.close()]);
  });

  it("A's websocket dropped mid-wait: resubscribed on reconnect, notified once", async () => {
    const { sig, raw } = await transfer(conn, payer, 1_000_001);
    const ours = await TestSocket.open(server!.websocketUrl!);
    const id = await subscribe(ours, sig, 'confirmed');
    await waitFor(() => upstreamSubscribes(sig).length === 1, 'the upstream subscription');
    const before = wsProxy.accepted;
    await wsProxy.close();
    await wsProxy.open();
    // Subscribed again on a new upstream connection (the HTTP side polls meanwhile).
    await waitFor(
      () => upstreamSubscribes(sig).some((m) => m.connection > before),
      'the subscription renewed on the new upstream socket',
    );
    expect(wsProxy.accepted).to.be.greaterThan(before);
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const frame = await ours.next(30_000);
    expect(frame).to.deep.include({ method: 'signatureNotification' });
    expect(frame.params!.subscription).to.equal(id);
    expect(frame.params!.result).to.have.nested.property('value.err', null);
    // The next frame is this call's answer: no second notification came before it.
    expect((await ours.call('signatureUnsubscribe', [id], 9)).error).to.include({ code: -32602 });
    await ours.close();
  });

  it("A's websocket down when the transaction lands: notified once by poll, nothing left pending", async () => {
    const { sig, raw } = await transfer(conn, payer, 1_000_002);
    const ours = await TestSocket.open(server!.websocketUrl!);
    const id = await subscribe(ours, sig, 'confirmed');
    await waitFor(() => upstreamSubscribes(sig).length === 1, 'the upstream subscription');
    await wsProxy.close();
    try {
      await conn.sendRawTransaction(raw, { skipPreflight: true });
      const frame = await ours.next(30_000);
      expect(frame.params!.subscription).to.equal(id);
      expect(frame.params!.result).to.have.nested.property('value.err', null);
      expect((await ours.call('signatureUnsubscribe', [id], 9)).error).to.include({ code: -32602 });
      expect(server!.plugins.statuses.signatureWatch.pending).to.equal(0);
    } finally {
      await wsProxy.open();
    }
    // Back up (after the reconnect backoff), nothing pending: the signature is not subscribed again.
    const sockets = server!.plugins.statuses.signatureRelay.sockets;
    await waitFor(() => sockets.every((s) => s.isOpen), 'the relay socket open again', { attempts: 1000 });
    expect(upstreamSubscribes(sig)).to.have.length(1);
    await ours.close();
  });

  it('a relayed finalized notification is learned: getSignatureStatuses answers it with the upstream unreachable', async () => {
    const { sig, raw } = await transfer(conn, payer, 1_000_003);
    const ours = await TestSocket.open(server!.websocketUrl!);
    await subscribe(ours, sig, 'finalized');
    await waitFor(() => upstreamSubscribes(sig).length === 1, 'the upstream subscription');
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const frame = await ours.next(30_000);
    await ours.close();
    await httpProxy.close();
    try {
      const res = await fetch(server!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[sig]] }),
      });
      const { result } = (await res.json()) as { result: { value: unknown[] } };
      expect(result.value[0]).to.deep.equal({
        confirmationStatus: 'finalized',
        confirmations: null,
        err: null,
        slot: (frame.params!.result as { context: { slot: number } }).context.slot,
        status: { Ok: null },
      });
    } finally {
      await httpProxy.open();
    }
  });

  it('10,000 subscriptions on 500 client sockets: one upstream socket per 100 (the default pool); all released upstream once they close, the extra sockets and the heap with them', async () => {
    const baseline = heapAfterGc();
    const sockets = await Promise.all(
      Array.from({ length: 500 }, () => TestSocket.open(server!.websocketUrl!)),
    );
    const sigs: string[] = [];
    await Promise.all(
      sockets.map(async (socket) => {
        for (let i = 0; i < 20; i++) {
          const sig = bs58.encode(randomBytes(64));
          sigs.push(sig);
          await subscribe(socket, sig, 'confirmed', i + 1);
        }
      }),
    );
    const relayed = () => {
      const upstream = new Set(tap.sent('signatureSubscribe').map((m) => (m.params as unknown[])[0]));
      return sigs.filter((s) => upstream.has(s)).length;
    };
    await waitFor(() => relayed() === sigs.length, 'every subscription relayed upstream', { attempts: 3000 });
    // Providers cap subscriptions per connection (often at 100): the relay opens another socket per 100.
    // (Connections attempted may be more: a handshake slower than upstreamTimeoutMs while the
    // 10,000 subscribes keep this process busy is tried again.)
    expect(wsProxy.live).to.equal(100);
    expect(server!.plugins.statuses.signatureRelay.sockets[0]!.socketCount).to.equal(100);
    const held = heapAfterGc() - baseline;
    const unsubscribesBefore = tap.sent('signatureUnsubscribe').length;
    await Promise.all(sockets.map((s) => s.close()));
    await waitFor(
      () => tap.sent('signatureUnsubscribe').length - unsubscribesBefore === sigs.length,
      'every upstream subscription ended',
      { attempts: 3000 },
    );
    expect(server!.plugins.statuses.signatureRelay.size).to.equal(0);
    expect(server!.plugins.statuses.signatureWatch.pending).to.equal(0);
    // The first socket stays for the next subscription; the others closed once empty.
    await waitFor(() => wsProxy.live === 1, 'the extra upstream sockets closed');
    // Counted in bytes after a full GC: what the 10,000 held (sockets and subscriptions, both
    // ends in this process, 32 MB) is given back. 11-12% stayed (code compiled on first use,
    // pools); the server's share alone is about half of what was held, so keeping it fails.
    sigs.length = 0; // the test's own records of the 10,000: not the server's to give back
    tap.messages.length = 0;
    sockets.length = 0;
    const left = heapAfterGc() - baseline;
    expect(held, 'heap held by the subscriptions').to.be.above(5 * 2 ** 20);
    expect(left, `heap left after close, of ${(held / 2 ** 20).toFixed(1)} MB held`).to.be.below(held / 4);
  });
});

describe('signatureSubscribe relay fallbacks and upkeep (validator A through a proxy)', function () {
  this.timeout(120_000);
  let conn: Connection;
  let payer: Keypair;
  const cleanups: (() => Promise<void>)[] = [];

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    conn = new Connection(VALIDATOR, 'confirmed');
    payer = Keypair.generate();
    const airdrop = await conn.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
    await conn.confirmTransaction({ signature: airdrop, ...(await conn.getLatestBlockhash()) }, 'confirmed');
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Proxies in front of A at P and P + 1, and a router whose one upstream is `upstream(P)`. */
  async function routerBefore(upstream: (port: number) => Record<string, unknown>, subscriptions = {}) {
    const port = await freePortPair();
    const a = new URL(VALIDATOR);
    const aWs = new URL(VALIDATOR_WS);
    const tap = new WsFrameTap();
    const httpProxy = await tcpProxy({ host: a.hostname, port: Number(a.port) }, { port });
    cleanups.push(() => httpProxy.close());
    const wsProxy = await tcpProxy(
      { host: aWs.hostname, port: Number(aWs.port) },
      { port: port + 1, onData: tap.onData },
    );
    cleanups.push(() => wsProxy.close());
    const server = await startWith({
      host: '127.0.0.1',
      statuses: { upstreams: [upstream(port)], subscriptions },
    });
    cleanups.push(async () => {
      await server.shutdown(0);
      server.cleanup();
    });
    return { server, wsProxy, tap };
  }

  it('wsUrl: false: no upstream socket; the subscription is notified by poll, equal to the validator’s', async () => {
    const { server, wsProxy } = await routerBefore((port) => ({
      url: `http://127.0.0.1:${port}`,
      wsUrl: false,
    }));
    const { sig, raw } = await transfer(conn, payer, 1_000_010);
    const ours = await TestSocket.open(server.websocketUrl!);
    await subscribe(ours, sig, 'confirmed');
    const own = await TestSocket.open(VALIDATOR_WS);
    await subscribe(own, sig, 'confirmed');
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const [o, t] = await Promise.all([ours.next(30_000), own.next(30_000)]);
    expect(o.params!.result).to.deep.equal(t.params!.result);
    expect(wsProxy.accepted).to.equal(0);
    expect(server.plugins.statuses.signatureRelay.sockets).to.have.length(0);
    await Promise.all([ours.close(), own.close()]);
  });

  it('credentials in the URL: sent as Basic authorization on the upgrade, not in the request line', async () => {
    const { server, tap } = await routerBefore((port) => ({
      url: `http://relay:s%20cret@127.0.0.1:${port}`,
    }));
    const ours = await TestSocket.open(server.websocketUrl!);
    await subscribe(ours, bs58.encode(randomBytes(64)), 'confirmed');
    const head = await waitFor(() => tap.upgrades[0], 'the upgrade');
    const expected = `Basic ${Buffer.from('relay:s cret').toString('base64')}`;
    expect(head.toLowerCase()).to.include(`authorization: ${expected.toLowerCase()}`);
    expect(head.split('\r\n')[0]).to.equal('GET / HTTP/1.1');
    expect(head).not.to.include('cret@');
    await ours.close();
  });

  it('an upstream socket that answers no ping is replaced; the pending subscription is renewed and notified once', async () => {
    const { server, wsProxy, tap } = await routerBefore((port) => ({ url: `http://127.0.0.1:${port}` }), {
      pingIntervalMs: 200,
    });
    const { sig, raw } = await transfer(conn, payer, 1_000_011);
    const ours = await TestSocket.open(server.websocketUrl!);
    const id = await subscribe(ours, sig, 'confirmed');
    const relayedOn = () =>
      tap
        .sent('signatureSubscribe')
        .filter((m) => (m.params as unknown[])[0] === sig)
        .map((m) => m.connection);
    await waitFor(() => relayedOn().length === 1, 'the upstream subscription');
    // The connection stays open but nothing passes: only the missing pong tells.
    wsProxy.freeze();
    await waitFor(() => relayedOn().some((c) => c > 1), 'the subscription renewed on a new upstream socket');
    expect(wsProxy.accepted).to.equal(2);
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const frame = await ours.next(30_000);
    expect(frame.params!.subscription).to.equal(id);
    expect(frame.params!.result).to.have.nested.property('value.err', null);
    expect((await ours.call('signatureUnsubscribe', [id], 9)).error).to.include({ code: -32602 });
    await ours.close();
  });

  it('an upstream that refuses the subscribe: the signature is polled and notified once', async () => {
    // A websocket on loopback refusing every call, as an upstream over its subscription limit does.
    const refusing = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => new Promise((resolve) => refusing.close(() => resolve())));
    await new Promise((resolve) => refusing.once('listening', resolve));
    const refused: string[] = [];
    refusing.on('connection', (socket) =>
      socket.on('message', (data) => {
        const m = JSON.parse(String(data)) as { id: number; method: string };
        refused.push(m.method);
        socket.send(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'too many' }, id: m.id }),
        );
      }),
    );
    const wsPort = (refusing.address() as { port: number }).port;
    const { server } = await routerBefore((port) => ({
      url: `http://127.0.0.1:${port}`,
      wsUrl: `ws://127.0.0.1:${wsPort}`,
    }));
    const { sig, raw } = await transfer(conn, payer, 1_000_012);
    const ours = await TestSocket.open(server.websocketUrl!);
    const id = await subscribe(ours, sig, 'confirmed');
    await waitFor(() => refused.includes('signatureSubscribe'), 'the refused upstream subscribe');
    const own = await TestSocket.open(VALIDATOR_WS);
    await subscribe(own, sig, 'confirmed');
    await conn.sendRawTransaction(raw, { skipPreflight: true });
    const [o, t] = await Promise.all([ours.next(30_000), own.next(30_000)]);
    expect(o.params!.subscription).to.equal(id);
    expect(o.params!.result).to.deep.equal(t.params!.result);
    expect((await ours.call('signatureUnsubscribe', [id], 9)).error).to.include({ code: -32602 });
    await Promise.all([ours.close(), own.close()]);
  });
});
