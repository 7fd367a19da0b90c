// The reference server's sockets: the upgrade on `port` and the second listener, access
// control from the config, and the graceful stop (calls under way answered, then 1001).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { listenOnReusablePort } from '@rollup-router/test-support/reusable-port';
import {
  finalized,
  runCli,
  serveForSuite,
  signature,
  startCli,
  standInUpstream,
  tempDir,
  writeJson,
  type StandIn,
} from './server.harness.js';
import { refusedUpgrade, TestSocket } from '@rollup-router/test-support/ws-client';
import { rawExchange, type RawHead } from '@rollup-router/test-support/raw-http';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { SECURITY_HEADERS } from '@rollup-router/server';
import { startWith } from '@rollup-router/test-support/ws-server';

describe('reference server: JSON-RPC over WebSocket', function () {
  this.timeout(30_000);
  let upstream: StandIn;
  before(async () => {
    upstream = await standInUpstream();
  });
  after(() => upstream.close());

  it('serves the socket by upgrade on its port and on the second listener; both answer every method', async () => {
    const server = await startWith({ statuses: { upstreams: [{ url: upstream.url }] } });
    try {
      const sig = signature();
      upstream.statuses.set(sig, finalized(77));
      for (const url of [server.url.replace('http', 'ws'), server.websocketUrl!]) {
        const c = await TestSocket.open(url);
        const answer = await c.call('getSignatureStatuses', [[sig]]);
        expect(answer.result).to.deep.equal({
          context: { apiVersion: '2.2.1', slot: 4242 },
          value: [finalized(77)],
        });
        expect((await c.call('getRoutes', [], 2)).result).to.be.an('array');
        await c.close();
      }
    } finally {
      await server.shutdown(0);
      server.cleanup();
    }
  });

  it('websocket.port false: no second listener; the upgrade on the port still works; API keys apply to upgrades', async () => {
    const server = await startWith({ websocket: { port: false }, apiKeys: ['secret-key-1'] });
    try {
      expect(server.websocketUrl).to.equal(undefined);
      const ws = server.url.replace('http', 'ws');
      expect((await refusedUpgrade(ws)).status).to.equal(401);
      const c = await TestSocket.open(`${ws}?api-key=secret-key-1`);
      expect((await c.call('getRoutes', [])).result).to.be.an('array');
      await c.close();
    } finally {
      await server.shutdown(0);
      server.cleanup();
    }
  });

  it('a refused upgrade carries the head a refused HTTP call does: security headers, request id, content type, WWW-Authenticate', async () => {
    const server = await startWith({ apiKeys: ['secret-key-1'] });
    try {
      const { host } = new URL(server.url);
      const common = `Host: ${host}\r\nX-Request-Id: refusal-1\r\nConnection: close\r\n`;
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getRoutes' });
      const overHttp = await rawExchange(
        server.url,
        `POST / HTTP/1.1\r\n${common}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const upgrade = await rawExchange(
        server.url,
        `GET / HTTP/1.1\r\n${common.replace('Connection: close', 'Connection: Upgrade')}Upgrade: websocket\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      );
      const expected = {
        ...SECURITY_HEADERS,
        'x-request-id': 'refusal-1',
        'content-type': 'application/json; charset=utf-8',
        'www-authenticate': 'Bearer',
      };
      const names = Object.keys(expected);
      const head = (r: RawHead) => ({ status: r.status, headers: pick(r.headers, names) });
      expect(head(overHttp)).to.deep.equal({ status: 401, headers: expected });
      expect(head(upgrade)).to.deep.equal(head(overHttp));
      expect(JSON.parse(upgrade.body)).to.deep.equal(JSON.parse(overHttp.body));
    } finally {
      await server.shutdown(0);
      server.cleanup();
    }
  });

  it('shutdown: a call under way is answered, then its socket closes with 1001; a closed socket frees its subscriptions', async () => {
    const server = await startWith({ statuses: { upstreams: [{ url: upstream.url }] } });
    upstream.delayMs = 300;
    try {
      const c = await TestSocket.open(server.websocketUrl!);
      const idle = await TestSocket.open(server.websocketUrl!);
      expect((await idle.call('signatureSubscribe', [signature()])).result).to.be.a('number');
      expect(server.rpc.subscriptions.active).to.equal(1);
      const asked = signature();
      c.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getSignatureStatuses', params: [[asked]] }));
      // Under way: the upstream has the call's signature (and holds it for delayMs).
      await waitFor(() => upstream.askedAbout(asked) > 0, 'the call under way');
      const stopping = server.shutdown(5000);
      const answer = await c.next();
      expect(answer.id).to.equal(7);
      expect(answer.result).to.have.property('value');
      expect((await c.closed).code).to.equal(1001);
      expect((await idle.closed).code).to.equal(1001);
      await stopping;
      expect(server.rpc.subscriptions.active).to.equal(0);
    } finally {
      upstream.delayMs = 0;
      server.cleanup();
    }
  });
});

/** Listens on `port` of 127.0.0.1 (rejects when it is taken). */
function occupy(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Two adjacent free ports: `port` left free, `port + 1` held by `holder`, as by another program. */
async function portBesideATakenOne(): Promise<{ port: number; holder: Server }> {
  let holder: Server | undefined;
  const taken = await listenOnReusablePort(async (candidate) => {
    const free = await occupy(candidate - 1); // throws EADDRINUSE: try another
    await new Promise((done) => free.close(done));
    holder = await occupy(candidate);
  });
  return { port: taken - 1, holder: holder! };
}

describe('rollup-router serve: the second listener (port + 1) is a WebSocket endpoint only', function () {
  this.timeout(60_000);
  const served = serveForSuite({ statuses: { store: false } });

  /** The second listener's URL, from the listening line. */
  const secondListener = (): string => {
    const line = served.server.logs().find((l) => String(l.msg).startsWith('listening'))!;
    return (line.endpoints as { websocketListener: string }).websocketListener;
  };

  it('is named in the listening line, and serves sockets', async () => {
    const url = secondListener();
    expect(url).to.match(/^ws:\/\/127\.0\.0\.1:\d+\/$/);
    expect(url).not.to.equal(`ws://127.0.0.1:${served.server.port}/`);
    const c = await TestSocket.open(url);
    expect((await c.call('getRoutes', [])).result).to.be.an('array');
    await c.close();
  });

  it('answers plain HTTP (/health, /ready, calls) with 426 Upgrade: websocket and a JSON-RPC error naming the main port', async () => {
    const http = secondListener().replace(/^ws/, 'http');
    const requests: [string, RequestInit][] = [
      ['health', { method: 'GET' }],
      ['ready', { method: 'GET' }],
      [
        '',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"getRoutes"}',
        },
      ],
    ];
    for (const [path, init] of requests) {
      const res = await fetch(`${http}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
      expect(res.status, path).to.equal(426);
      expect(res.headers.get('upgrade')).to.equal('websocket');
      const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; data: string } };
      expect(body.jsonrpc).to.equal('2.0');
      expect(body.id).to.equal(null);
      expect(body.error.code).to.equal(-32600);
      expect(body.error.data).to.include(`http://127.0.0.1:${served.server.port}/`);
    }
  });
});

describe('rollup-router serve: port + 1 taken by another program', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let holder: Server | undefined;
  beforeEach(() => (tmp = tempDir()));
  afterEach(async () => {
    if (holder) await new Promise((done) => holder!.close(done));
    tmp.remove();
  });

  it('exits 2 with a message on stderr naming that port as the WebSocket port, its key and its variable', async () => {
    const free = await portBesideATakenOne();
    holder = free.holder;
    const config = writeJson(join(tmp.dir, 'config.json'), { statuses: { store: false } });
    const r = await runCli(['--config', config, '--port', String(free.port)]);
    expect(r.code, r.stdout).to.equal(2);
    expect(r.stderr).to.include(`port ${free.port + 1}`);
    expect(r.stderr).to.include('WebSocket');
    expect(r.stderr).to.include('/websocket/port');
    expect(r.stderr).to.include('ROLLUP_ROUTER_WS_PORT');
  });

  it('ROLLUP_ROUTER_WS_PORT=off: the server starts beside the taken port, with no second listener', async () => {
    const free = await portBesideATakenOne();
    holder = free.holder;
    const config = writeJson(join(tmp.dir, 'config.json'), { statuses: { store: false } });
    const server = await startCli(['--config', config, '--port', String(free.port)], {
      ROLLUP_ROUTER_WS_PORT: 'off',
    });
    try {
      expect(server.port).to.equal(free.port);
      const line = server.logs().find((l) => String(l.msg).startsWith('listening'))!;
      expect((line.endpoints as { websocketListener: unknown }).websocketListener).to.equal(false);
    } finally {
      await server.kill();
    }
  });

  it('ROLLUP_ROUTER_WS_PORT=<port> sets /websocket/port', async () => {
    const config = writeJson(join(tmp.dir, 'config.json'), { statuses: { store: false } });
    const r = await runCli(['check-config', config], { ROLLUP_ROUTER_WS_PORT: '9555' });
    expect(r.code, r.stderr).to.equal(0);
    const effective = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { websocket: { port: unknown } };
    expect(effective.websocket.port).to.equal(9555);
  });
});

const pick = (headers: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> =>
  Object.fromEntries(names.filter((n) => headers[n] !== undefined).map((n) => [n, headers[n]!]));
