import { writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { listen } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import {
  finalized,
  get,
  sample,
  serveWith,
  signature,
  standInUpstream,
  tempDir,
  type ServerProcess,
  type StandIn,
  type Status,
} from './server.harness.js';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * One request; resolves with the complete answer or rejects. `agent: false` puts it on a
 * connection of its own (no pool): what a new client or a load balancer's probe does.
 */
function request(
  url: string,
  method: 'GET' | 'POST',
  agent: http.Agent | false,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One POST on `agent`, with the answer's Connection header. */
function postSeeingConnection(
  agent: http.Agent,
  url: string,
  body: string,
): Promise<Answer & { connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One POST on the given keep-alive connection pool. */
const post = (agent: http.Agent, url: string, body: string): Promise<Answer> =>
  request(url, 'POST', agent, body);

/** One request on a connection of its own. */
const onNewConnection = (url: string, method: 'GET' | 'POST', body?: string): Promise<Answer> =>
  request(url, method, false, body);

/** Resolves once the server logged that shutdown (draining) began. */
async function shutdownBegan(server: ServerProcess): Promise<void> {
  await waitFor(() => server.logs().some((l) => String(l.msg).startsWith('shutting down')), 'draining began');
}

describe('rollup-router serve: graceful shutdown under load', function () {
  this.timeout(90_000);
  const CALLS = 200;
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let server: ServerProcess;
  let storePath: string;
  const known = new Map<string, Status>();
  const sigs: string[] = [];

  before(async () => {
    tmp = tempDir();
    for (let i = 0; i < CALLS; i++) {
      const sig = signature();
      sigs.push(sig);
      known.set(sig, finalized(1000 + i));
    }
    // Slow enough that every call is still waiting on it when the signal comes.
    upstream = await standInUpstream(known, 1500);
    storePath = join(tmp.dir, 'store.sqlite');
    server = await serveWith(tmp.dir, {
      statuses: {
        upstreams: [{ url: upstream.url }],
        store: { path: storePath },
        upstreamTimeoutMs: 20_000,
        deadlineMs: 20_000,
      },
      limits: { callDeadlineMs: 30_000 },
      readiness: { upstreamProbeIntervalMs: 0 },
      shutdown: { graceMs: 30_000 },
    });
  });

  after(async () => {
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  it('SIGTERM with 200 calls in flight: every call gets its complete answer, exit 0, the store is intact', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CALLS + 10 });
    const calls = sigs.map((sig, i) =>
      post(
        agent,
        `${server.base}/`,
        JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getSignatureStatuses', params: [[sig]] }),
      ),
    );
    // All 200 are being answered (the scrape itself is one more request) before the signal.
    await waitFor(
      async () => {
        const m = await get(`${server.base}/metrics`);
        return (sample(m.text, 'rollup_router_http_inflight_requests') ?? 0) >= CALLS + 1;
      },
      'all calls in flight',
      { attempts: 1000 },
    );
    await waitFor(() => upstream.requestCount >= 1, 'the calls reached the slow upstream');

    server.signal('SIGTERM');
    const answers = await Promise.all(calls);
    const code = await server.exited;
    agent.destroy();

    expect(code).to.equal(0);
    answers.forEach((a, i) => {
      expect(a.status).to.equal(200);
      const json = JSON.parse(a.body) as { id: number; result: { value: unknown[] } };
      expect(json.id).to.equal(i);
      expect(json.result.value).to.deep.equal([known.get(sigs[i]!)]);
    });
    const logs = server.logs().map((l) => l.msg);
    expect(logs).to.include('stopped');

    const db = new Database(storePath, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
      // The finalized statuses learned during the calls were written before the store closed.
      const stored = (db.prepare('SELECT count(*) AS n FROM signature_statuses').get() as { n: number }).n;
      expect(stored).to.equal(CALLS);
    } finally {
      db.close();
    }
  });
});

describe('rollup-router serve: a second signal does not wait', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let server: ServerProcess;

  before(async () => {
    tmp = tempDir();
    upstream = await standInUpstream(new Map(), 60_000);
    server = await serveWith(tmp.dir, {
      statuses: {
        upstreams: [{ url: upstream.url }],
        store: false,
        upstreamTimeoutMs: 60_000,
        deadlineMs: 60_000,
      },
      limits: { callDeadlineMs: 60_000 },
      readiness: { upstreamProbeIntervalMs: 0 },
      shutdown: { graceMs: 60_000 },
    });
  });

  after(async () => {
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  it('exits with 1 on the second SIGTERM while a call is still waiting', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const call = post(
      agent,
      `${server.base}/`,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[signature()]] }),
    ).catch((err: Error) => err);
    await waitFor(() => upstream.requestCount >= 1, 'the call reached the upstream');
    server.signal('SIGTERM');
    await shutdownBegan(server);
    server.signal('SIGTERM');
    expect(await server.exited).to.equal(1);
    expect(await call).to.be.instanceOf(Error);
    agent.destroy();
  });
});

describe('rollup-router serve: a keep-alive connection while draining', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let server: ServerProcess;
  const sig = signature();

  before(async () => {
    tmp = tempDir();
    upstream = await standInUpstream(new Map([[sig, finalized(5)]]), 1500);
    server = await serveWith(tmp.dir, {
      statuses: { upstreams: [{ url: upstream.url }], store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
  });

  after(async () => {
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  it('the call under way is answered; the next one on the connection gets 503 -32053 with Connection: close', async () => {
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString()));
    const closed = new Promise((done) => socket.once('close', done));
    const request = (body: unknown): string => {
      const text = JSON.stringify(body);
      return `POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    };
    socket.write(request({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[sig]] }));
    await waitFor(() => upstream.requestCount >= 1, 'the first call reached the upstream');
    server.signal('SIGTERM');
    await shutdownBegan(server);
    socket.write(request({ jsonrpc: '2.0', id: 2, method: 'getRoutes' }));
    await closed; // the server closes the connection after the 503

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).to.match(/^HTTP\/1\.1 200 /);
    const firstBody = JSON.parse(first!.slice(first!.indexOf('\r\n\r\n') + 4)) as {
      id: number;
      result: { value: unknown[] };
    };
    expect(firstBody.id).to.equal(1);
    expect(firstBody.result.value).to.deep.equal([finalized(5)]);
    expect(second).to.match(/^HTTP\/1\.1 503 /);
    expect(second).to.match(/\r\nconnection: close\r\n/i);
    const secondBody = JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4)) as {
      error: { code: number; data: { code: number } };
    };
    expect(secondBody.error.data.code).to.equal(-32053);
    expect(await server.exited).to.equal(0);
  });
});

/** A Solana node on loopback that holds getSignatureStatuses answers while `holding` is set, until released. */
async function gatedUpstream(known: Map<string, Status>): Promise<{
  url: string;
  holding: boolean;
  held: number;
  release(): void;
  close(): Promise<void>;
}> {
  const waiting: (() => void)[] = [];
  const state = { holding: false, held: 0 };
  const server = await listen((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(text) as { id: unknown; method: string; params?: [string[]] };
      const result =
        call.method === 'getSignatureStatuses'
          ? {
              context: { apiVersion: '2.2.1', slot: 7 },
              value: call.params![0].map((s) => known.get(s) ?? null),
            }
          : 'ok';
      const answer = (): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', result, id: call.id }));
      };
      if (call.method === 'getSignatureStatuses' && state.holding) {
        state.held += 1;
        waiting.push(answer);
      } else answer();
    });
  });
  return Object.assign(state, {
    url: server.url,
    release: () => waiting.splice(0).forEach((answer) => answer()),
    close: server.close,
  });
}

describe('rollup-router serve: draining keeps listening', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let upstream: Awaited<ReturnType<typeof gatedUpstream>>;
  let server: ServerProcess;
  const early = signature();
  const slow = signature();

  before(async () => {
    tmp = tempDir();
    upstream = await gatedUpstream(
      new Map([
        [early, finalized(3)],
        [slow, finalized(4)],
      ]),
    );
    server = await serveWith(tmp.dir, {
      statuses: {
        upstreams: [{ url: upstream.url }],
        store: false,
        upstreamTimeoutMs: 30_000,
        deadlineMs: 30_000,
      },
      limits: { callDeadlineMs: 30_000 },
      readiness: { upstreamProbeIntervalMs: 0 },
      shutdown: { graceMs: 30_000 },
    });
  });

  after(async () => {
    upstream?.release();
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  it('SIGTERM with a slow call in flight: a new connection gets 503 -32053, /ready 503, the call is answered, exit 0', async () => {
    const call = (id: number, sig: string): string =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'getSignatureStatuses', params: [[sig]] });
    // An upstream answered, so the server is ready before the signal.
    expect((await onNewConnection(`${server.base}/`, 'POST', call(1, early))).status).to.equal(200);
    expect((await onNewConnection(`${server.base}/ready`, 'GET')).status).to.equal(200);

    upstream.holding = true;
    const inFlight = onNewConnection(`${server.base}/`, 'POST', call(2, slow));
    await waitFor(() => upstream.held >= 1, 'the slow call reached the upstream');
    server.signal('SIGTERM');
    await shutdownBegan(server);

    const refused = await onNewConnection(`${server.base}/`, 'POST', call(3, early));
    expect(refused.status).to.equal(503);
    expect((JSON.parse(refused.body) as { error: { data: { code: number } } }).error.data.code).to.equal(
      -32053,
    );
    const ready = await onNewConnection(`${server.base}/ready`, 'GET');
    expect(ready.status).to.equal(503);
    expect((JSON.parse(ready.body) as { reasons: string[] }).reasons).to.include('shutting down');

    upstream.release();
    const answered = await inFlight;
    expect(answered.status).to.equal(200);
    expect(JSON.parse(answered.body)).to.deep.include({
      id: 2,
      result: { context: { apiVersion: '2.2.1', slot: 7 }, value: [finalized(4)] },
    });
    expect(await server.exited).to.equal(0);
  });
});

describe('rollup-router serve: shutdown.drainDelayMs keeps an idle server answering', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  const start = (drainDelayMs: number): Promise<ServerProcess> =>
    serveWith(tmp.dir, { statuses: { store: false }, shutdown: { drainDelayMs } });

  it('during the delay /ready answers 503 while calls are still answered, each closing its connection', async () => {
    const server = await start(600_000);
    try {
      expect((await onNewConnection(`${server.base}/ready`, 'GET')).status).to.equal(200);
      server.signal('SIGTERM');
      await shutdownBegan(server);
      const ready = await onNewConnection(`${server.base}/ready`, 'GET');
      expect(ready.status).to.equal(503);
      expect((JSON.parse(ready.body) as { reasons: string[] }).reasons).to.include('shutting down');
      // A client that keeps its connection open is told to open a new one (through its
      // balancer, to an instance that stays) and answered all the same.
      const agent = new http.Agent({ keepAlive: true });
      try {
        for (const id of [1, 2]) {
          const { status, body, connection } = await postSeeingConnection(
            agent,
            `${server.base}/`,
            JSON.stringify({ jsonrpc: '2.0', id, method: 'getRoutes' }),
          );
          expect(status, body).to.equal(200);
          expect(JSON.parse(body)).to.deep.include({ id, result: [] });
          expect(connection).to.equal('close');
        }
      } finally {
        agent.destroy();
      }
      server.signal('SIGTERM'); // a second signal does not wait out the delay
      expect(await server.exited).to.equal(1);
    } finally {
      await server.kill();
    }
  });

  it('after the delay the listener closes and the process exits 0', async () => {
    const server = await start(200);
    server.signal('SIGTERM');
    expect(await server.exited).to.equal(0);
    expect(server.logs().some((l) => l.msg === 'stopped')).to.equal(true);
  });
});

describe('rollup-router serve: a WebSocket client that leaves during shutdown', function () {
  // Bounds the test: on a hang the server would wait for this client for ever.
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let server: ServerProcess;

  beforeEach(async () => {
    tmp = tempDir();
    // Answers long after the test's timeout: the call is still under way when its client leaves.
    upstream = await standInUpstream(new Map(), 600_000);
    server = await serveWith(tmp.dir, {
      statuses: {
        upstreams: [{ url: upstream.url }],
        store: { path: join(tmp.dir, 'store.sqlite') },
        upstreamTimeoutMs: 600_000,
        deadlineMs: 600_000,
      },
      limits: { callDeadlineMs: 600_000 },
      readiness: { upstreamProbeIntervalMs: 0 },
      // Longer than the test's timeout: only the client's leaving can end the wait.
      shutdown: { graceMs: 600_000 },
    });
  });

  afterEach(async () => {
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  /** A socket on the server's port with one getSignatureStatuses call waiting on the upstream. */
  async function callUnderWay(): Promise<TestSocket> {
    const client = await TestSocket.open(`ws://127.0.0.1:${server.port}/`);
    client.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[signature()]] }),
    );
    await waitFor(() => upstream.requestCount >= 1, 'the call reached the upstream');
    return client;
  }

  it('SIGTERM, then the client leaves mid-call: the process exits 0 and logs that the store was closed', async () => {
    const client = await callUnderWay();
    server.signal('SIGTERM');
    await shutdownBegan(server);
    client.ws.terminate();
    expect(await server.exited).to.equal(0);
    const logs = server.logs().map((l) => l.msg);
    expect(logs).to.include('store closed');
    expect(logs).to.include('stopped');
  });

  it('a second SIGTERM exits at once with 1, while the first waits for the call', async () => {
    const client = await callUnderWay();
    server.signal('SIGTERM');
    await shutdownBegan(server);
    server.signal('SIGTERM');
    expect(await server.exited).to.equal(1);
    expect(server.logs().map((l) => l.msg)).to.include('second signal: exiting without waiting');
    client.ws.terminate();
  });
});

describe('rollup-router serve: a plugin whose stop() never ends', function () {
  // Bounds the test: on a hang the server would wait for the plugin for ever.
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess;

  before(async () => {
    tmp = tempDir();
    // Its timer keeps the process alive, as a real plugin's connection would.
    writeFileSync(
      join(tmp.dir, 'stuck-plugin.mjs'),
      `let timer;
export default {
  name: 'stuck',
  start() { timer = setInterval(() => undefined, 1000); },
  stop: () => new Promise(() => undefined),
};
`,
    );
    server = await serveWith(tmp.dir, {
      statuses: { store: { path: join(tmp.dir, 'store.sqlite') } },
      plugins: ['./stuck-plugin.mjs'],
      readiness: { upstreamProbeIntervalMs: 0 },
    });
  });

  after(async () => {
    await server?.kill();
    tmp?.remove();
  });

  it('SIGTERM: the store is closed anyway and the process exits 1, naming the step that hung', async () => {
    server.signal('SIGTERM');
    expect(await server.exited).to.equal(1);
    const logs = server.logs();
    expect(logs.map((l) => l.msg)).to.include('store closed');
    expect(logs.some((l) => l.step === 'stopping the plugins')).to.equal(true);
    expect(logs.map((l) => l.msg)).not.to.include('stopped');
  });
});
