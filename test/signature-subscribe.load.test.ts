// Load on the reference server (the built CLI as a child process, so its memory is its own):
// 1,000 sockets with 10 signatureSubscribe each, against a loopback upstream stand-in that
// counts requests. Numbers are reported; nothing is timed.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { randomSignatures, status } from '@rollup-router/test-support/solana';
import { REPO, startCli, tempDir, writeJson, type ServerProcess } from './server.harness.js';
import { TestSocket } from '@rollup-router/test-support/ws-client';

const SOCKETS = 1000;
const PER_SOCKET = 10;
const TOTAL = SOCKETS * PER_SOCKET;

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no metric ${name}`);
  return Number(line.split(' ')[1]);
}

const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

describe('signatureSubscribe under load: 1,000 sockets x 10 subscriptions', function () {
  this.timeout(180_000);
  let upstream: SolanaStandIn;
  let server: ServerProcess;
  let tmp: ReturnType<typeof tempDir>;
  const sockets: TestSocket[] = [];
  const signatures = randomSignatures(TOTAL);

  before(async () => {
    upstream = await SolanaStandIn.start(9000);
    tmp = tempDir();
    const config = writeJson(join(tmp.dir, 'config.json'), {
      routes: { file: join(REPO, 'packages/server/defaults/routes.example.json') },
      statuses: { store: false, upstreams: [{ url: upstream.url }], subscriptions: { pollIntervalMs: 400 } },
      websocket: { port: false, limits: { maxConnectionsPerIp: SOCKETS + 10 } },
    });
    server = await startCli(['--config', config, '--port', '0'], {}, REPO, ['--expose-gc']);
  });

  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  it('every subscription is acknowledged; the upstream sees batched polls only; closing frees them all (metrics)', async () => {
    const memory = async (): Promise<{ rss: number; heap: number }> => ({
      rss: await metric(server.base, 'rollup_router_process_resident_memory_bytes'),
      heap: await metric(server.base, 'rollup_router_nodejs_heap_size_used_bytes'),
    });
    const baseline = await memory();
    const url = `ws://127.0.0.1:${server.port}/`;
    for (let i = 0; i < SOCKETS; i += 100) {
      sockets.push(...(await Promise.all(Array.from({ length: 100 }, () => TestSocket.open(url)))));
    }
    const connected = await memory();
    const ids = new Set<number>();
    await Promise.all(
      sockets.map(async (socket, i) => {
        for (let j = 0; j < PER_SOCKET; j++) {
          const sig = signatures[i * PER_SOCKET + j]!;
          socket.send(`{"jsonrpc":"2.0","id":${j},"method":"signatureSubscribe","params":["${sig}"]}`);
        }
        for (let j = 0; j < PER_SOCKET; j++) {
          const ack = await socket.next(60_000);
          expect(ack.result, JSON.stringify(ack)).to.be.a('number');
          ids.add(ack.result as number);
        }
      }),
    );
    expect(ids.size).to.equal(TOTAL);
    expect(await metric(server.base, 'rollup_router_subscriptions')).to.equal(TOTAL);
    expect(await metric(server.base, 'rollup_router_signature_subscriptions_pending')).to.equal(TOTAL);
    const loaded = await memory();

    // Rounds are counted at their end; between two scrapes at most one more round was under way.
    const rounds0 = await metric(server.base, 'rollup_router_signature_poll_rounds_total');
    const requests0 = upstream.requestCount;
    for (let i = 0; i < 500; i++) {
      if ((await metric(server.base, 'rollup_router_signature_poll_rounds_total')) >= rounds0 + 4) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const rounds1 = await metric(server.base, 'rollup_router_signature_poll_rounds_total');
    const requests = upstream.requestCount - requests0;
    const perRound = Math.ceil(TOTAL / 256);
    expect(rounds1 - rounds0).to.be.at.least(4);
    expect(requests).to.be.at.most((rounds1 - rounds0 + 1) * perRound);
    expect(Math.max(...upstream.requests.map((r) => r.signatures.length))).to.be.at.most(256);

    // Ten signatures reach finalized at the upstream: each subscriber hears of it once.
    for (let i = 0; i < 10; i++)
      upstream.statuses.set(signatures[i * PER_SOCKET]!, status('finalized', 9001));
    for (let i = 0; i < 10; i++) {
      const n = await sockets[i]!.next(10_000);
      expect(n.method).to.equal('signatureNotification');
      expect(n.params!.result).to.deep.equal({
        context: { apiVersion: '2.2.1', slot: 9001 },
        value: { err: null },
      });
    }

    await Promise.all(sockets.splice(0).map((s) => s.close()));
    for (let i = 0; i < 200; i++) {
      if ((await metric(server.base, 'rollup_router_subscriptions')) === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await metric(server.base, 'rollup_router_subscriptions')).to.equal(0);
    expect(await metric(server.base, 'rollup_router_signature_subscriptions_pending')).to.equal(0);
    expect(await metric(server.base, 'rollup_router_websocket_connections')).to.equal(0);
    await new Promise((r) => setTimeout(r, 3000));
    const after = await memory();
    const show = (m: { rss: number; heap: number }): string => `RSS ${mib(m.rss)} heap ${mib(m.heap)}`;
    console.log(
      `      baseline ${show(baseline)}; ${SOCKETS} sockets ${show(connected)}; ` +
        `+${TOTAL} subscriptions ${show(loaded)} (${((loaded.heap - connected.heap) / TOTAL).toFixed(0)} B heap per idle subscription); ` +
        `after close ${show(after)}; upstream: ${requests} requests in ${rounds1 - rounds0} rounds (at most ${perRound} per round)`,
    );
  });
});

describe('memory per idle subscription, and back to baseline after close (heap after a full GC)', function () {
  this.timeout(180_000);

  it('10,000 idle subscriptions on 1,000 sockets: the heap returns near its baseline once they close', async () => {
    const upstream = await SolanaStandIn.start(9000);
    try {
      const probe = join(REPO, 'test/support/ws-memory-probe.ts');
      const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', probe, upstream.url], {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      await new Promise((done) => child.once('exit', done));
      const m = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
      expect(m.active).to.equal(TOTAL);
      const perSubscription = (m.subscribed! - m.connected!) / TOTAL;
      console.log(
        `      heap: baseline ${mib(m.baseline!)}, 1,000 sockets ${mib(m.connected!)}, +10,000 subscriptions ${mib(m.subscribed!)} ` +
          `(${perSubscription.toFixed(0)} B per idle subscription, server and client), after close ${mib(m.closed!)}`,
      );
      // A leak of what the subscriptions or sockets held would keep most of that growth.
      expect(m.closed! - m.baseline!).to.be.below((m.subscribed! - m.baseline!) / 2);
    } finally {
      await upstream.close();
    }
  });
});
