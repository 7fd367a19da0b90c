import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { waitFor } from '@rollup-router/test-support/wait-for';
import {
  finalized,
  get,
  pubkey,
  REPO,
  rpc,
  sample,
  serveWith,
  signature,
  standInUpstream,
  startCli,
  tempDir,
  writeJson,
  type ServerProcess,
  type StandIn,
  type Status,
} from './server.harness.js';

describe('rollup-router serve: the built CLI over HTTP', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let server: ServerProcess;
  const known = new Map<string, Status>();
  const sigKnown = signature();
  const sigUnknown = signature();
  const routes = [
    { identity: pubkey(), fqdn: 'https://er-1.example.com', baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
    {
      identity: pubkey(),
      fqdn: 'https://er-2.example.com',
      baseFee: 5000,
      blockTimeMs: 40,
      countryCode: 'USA',
    },
  ];
  let routesFile: string;

  before(async () => {
    tmp = tempDir();
    known.set(sigKnown, finalized(1234));
    upstream = await standInUpstream(known);
    routesFile = writeJson(join(tmp.dir, 'routes.json'), routes);
    // PORT in the environment loses to the --port flag.
    server = await serveWith(
      tmp.dir,
      {
        routes: { file: routesFile, watch: false },
        statuses: { upstreams: [{ url: upstream.url }], store: { path: join(tmp.dir, 'store.sqlite') } },
        readiness: { upstreamProbeIntervalMs: 1000 },
      },
      { env: { PORT: '1' } },
    );
  });

  after(async () => {
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  const request = (method: string, params?: unknown, id: unknown = 1) => ({
    jsonrpc: '2.0',
    id,
    method,
    ...(params === undefined ? {} : { params }),
  });

  it('logs where it listens and what it loaded', () => {
    const line = server.logs().find((l) => String(l.msg).startsWith('listening'))!;
    expect(line.url).to.equal(`${server.base}/`);
    expect(line.methods).to.include.members(['getRoutes', 'getSignatureStatuses']);
    expect((line.routes as { file: string; nodes: number }).nodes).to.equal(routes.length);
    expect(line.store).to.equal(join(tmp.dir, 'store.sqlite'));
  });

  it('getSignatureStatuses on the root endpoint: strict JSON-RPC, no error key, one entry per signature', async () => {
    const r = await rpc(
      `${server.base}/`,
      request('getSignatureStatuses', [[sigKnown, sigUnknown, sigKnown]], 7),
    );
    expect(r.status).to.equal(200);
    expect(r.json).not.to.have.property('error');
    expect(r.json.id).to.equal(7);
    const result = r.json.result as { context: { slot: number; apiVersion: string }; value: unknown[] };
    expect(result.value).to.deep.equal([known.get(sigKnown), null, known.get(sigKnown)]);
    expect(result.context.apiVersion).to.be.a('string');
  });

  it('getSignatureStatuses on its path: the specification envelope with "error": null', async () => {
    const r = await rpc(
      `${server.base}/getSignatureStatuses`,
      request('getSignatureStatuses', [[sigKnown]], 8),
    );
    expect(r.status).to.equal(200);
    expect(r.json).to.have.property('error', null);
    expect((r.json.result as { value: unknown[] }).value).to.deep.equal([known.get(sigKnown)]);
  });

  it('getRoutes on both endpoints: the routes file, no error key', async () => {
    for (const url of [`${server.base}/`, `${server.base}/getRoutes`]) {
      const r = await rpc(url, request('getRoutes'));
      expect(r.status).to.equal(200);
      expect(r.json).not.to.have.property('error');
      expect(r.json.result).to.deep.equal(routes);
    }
  });

  it('GET /health answers 200 while the process runs', async () => {
    const r = await get(`${server.base}/health`);
    expect(r.status).to.equal(200);
    expect(JSON.parse(r.text)).to.deep.equal({ status: 'ok' });
  });

  it('GET /ready answers 200 with the store open, routes loaded and the upstream answering', async () => {
    const r = await get(`${server.base}/ready`);
    expect(r.status, r.text).to.equal(200);
    const body = JSON.parse(r.text) as { status: string; checks: Record<string, string> };
    expect(body.status).to.equal('ready');
    expect(body.checks.store).to.equal('open');
    expect(body.checks.routes).to.include(`${routes.length} of ${routes.length}`);
  });

  it('GET /metrics counts calls by method and code, upstream requests, cache layers and nodes', async () => {
    const before = await get(`${server.base}/metrics`);
    const calls = (text: string) =>
      sample(text, 'rollup_router_calls_total{method="getSignatureStatuses",code="0"}') ?? 0;
    await rpc(`${server.base}/`, request('getSignatureStatuses', [[sigKnown]]));
    await rpc(`${server.base}/`, request('noSuchMethod'));
    const after = await get(`${server.base}/metrics`);
    expect(after.status).to.equal(200);
    expect(after.headers.get('content-type')).to.include('text/plain');
    expect(calls(after.text)).to.equal(calls(before.text) + 1);
    expect(sample(after.text, 'rollup_router_calls_total{method="other",code="-32601"}')).to.be.at.least(1);
    expect(after.text).to.match(
      /rollup_router_call_duration_seconds_bucket\{le="[^"]+",method="getSignatureStatuses",outcome="ok"\}/,
    );
    const upstreamLabel = new URL(upstream.url).origin;
    expect(
      sample(after.text, `rollup_router_upstream_requests_total{upstream="${upstreamLabel}",outcome="ok"}`),
    ).to.be.at.least(1);
    // The known signature was learned from the upstream once, then served from memory.
    expect(sample(after.text, 'rollup_router_status_lookups_total{layer="memory"}')).to.be.at.least(1);
    expect(sample(after.text, 'rollup_router_nodes_available')).to.equal(routes.length);
    expect(
      sample(
        after.text,
        `rollup_router_node_available{identity="${routes[0]!.identity}",fqdn="${routes[0]!.fqdn}"}`,
      ),
    ).to.equal(1);
  });

  it('GET /metrics: every call is in the duration histogram, batched calls and failures too', async () => {
    const count = (text: string, method: string, outcome: string) =>
      sample(text, `rollup_router_call_duration_seconds_count{method="${method}",outcome="${outcome}"}`) ?? 0;
    const before = (await get(`${server.base}/metrics`)).text;
    // More calls than the histogram keeps back between scrapes, so some are observed early.
    const batch = (n: number, method: string) =>
      Array.from({ length: n }, (_, i) => request(method, undefined, i + 1));
    for (let i = 0; i < 3; i++) await rpc(`${server.base}/`, batch(100, 'getRoutes'));
    await rpc(`${server.base}/`, batch(7, 'noSuchMethod'));
    const after = (await get(`${server.base}/metrics`)).text;
    expect(count(after, 'getRoutes', 'ok') - count(before, 'getRoutes', 'ok')).to.equal(300);
    expect(count(after, 'other', 'error') - count(before, 'other', 'error')).to.equal(7);
    expect(sample(after, 'rollup_router_calls_total{method="getRoutes",code="0"}')).to.equal(
      count(after, 'getRoutes', 'ok'),
    );
  });

  it('GET /metrics counts HTTP responses by status, each once', async () => {
    const responses = (text: string, status: number) =>
      sample(text, `rollup_router_http_responses_total{status="${status}"}`) ?? 0;
    const before = await get(`${server.base}/metrics`);
    expect(
      (await rpc(`${server.base}/`, request('getRoutes'), { 'content-type': 'text/plain' })).status,
    ).to.equal(415);
    expect((await get(`${server.base}/`)).status).to.equal(405);
    expect((await get(`${server.base}/`)).status).to.equal(405);
    const after = await get(`${server.base}/metrics`);
    expect(responses(after.text, 415)).to.equal(responses(before.text, 415) + 1);
    expect(responses(after.text, 405)).to.equal(responses(before.text, 405) + 2);
    // The first scrape's own 200 was counted once it was written.
    expect(responses(after.text, 200)).to.be.at.least(responses(before.text, 200) + 1);
  });

  it('sends security headers and no x-powered-by, on RPC and non-RPC answers', async () => {
    for (const r of [
      await rpc(`${server.base}/`, request('getRoutes')),
      await get(`${server.base}/health`),
    ]) {
      expect(r.headers.get('x-powered-by')).to.equal(null);
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(r.headers.get('cache-control')).to.equal('no-store');
      expect(r.headers.get('x-frame-options')).to.equal('DENY');
    }
  });

  it('an unexpected path is a 404 with a JSON-RPC error body, no stack', async () => {
    const r = await get(`${server.base}/nope`);
    expect(r.status).to.equal(404);
    expect(JSON.parse(r.text)).to.deep.equal({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: null,
    });
  });

  it('a POST to a path-style method nobody serves is -32601 echoing its id, as the core answers it', async () => {
    const r = await rpc(`${server.base}/noSuchMethod`, { jsonrpc: '2.0', id: 7, method: 'noSuchMethod' });
    expect(r.status).to.equal(404);
    expect(JSON.parse(r.text)).to.deep.include({ jsonrpc: '2.0', id: 7 });
    expect(JSON.parse(r.text).error.code).to.equal(-32601);
    // Deeper paths are no endpoint: the plain 404.
    const deeper = await rpc(`${server.base}/a/b`, { jsonrpc: '2.0', id: 8, method: 'a' });
    expect(deeper.status).to.equal(404);
    expect(JSON.parse(deeper.text).id).to.equal(null);
  });

  it('SIGHUP reloads the routes file (watching is off in this config)', async () => {
    const added = {
      identity: pubkey(),
      fqdn: 'https://er-3.example.com',
      baseFee: 1,
      blockTimeMs: 60,
      countryCode: 'JPN',
    };
    writeJson(routesFile, [...routes, added]);
    server.signal('SIGHUP');
    await waitFor(async () => {
      const r = await rpc(`${server.base}/`, request('getRoutes'));
      return (r.json.result as unknown[]).length === routes.length + 1;
    }, 'getRoutes lists the added node after SIGHUP');
    const r = await rpc(`${server.base}/getRoutes`, request('getRoutes'));
    expect(r.json.result).to.deep.equal([...routes, added]);
  });
});

describe('rollup-router serve: readiness without a reachable upstream', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  let upstream: StandIn;

  before(async () => {
    tmp = tempDir();
    // A port that was just listening and is now closed: connections are refused.
    upstream = await standInUpstream();
    await upstream.close();
    server = await serveWith(
      tmp.dir,
      {
        statuses: { upstreams: [{ url: upstream.url }], store: false },
        readiness: { upstreamProbeIntervalMs: 1000 },
        logLevel: 'warn',
      },
      { args: ['--log-level', 'info'] },
    );
  });

  after(async () => {
    await server?.kill();
    tmp?.remove();
  });

  it('GET /ready is 503 and says no upstream answered; /health stays 200', async () => {
    const r = await get(`${server.base}/ready`);
    expect(r.status).to.equal(503);
    const body = JSON.parse(r.text) as { status: string; reasons: string[] };
    expect(body.status).to.equal('not ready');
    expect(body.reasons.join(' ')).to.include('no upstream');
    expect((await get(`${server.base}/health`)).status).to.equal(200);
  });

  it('a signature nobody knows gets the documented upstream error code, no stack', async () => {
    const r = await rpc(`${server.base}/`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [[signature()]],
    });
    const error = r.json.error as { code: number; message: string; data: { code: number } };
    expect(error.data.code).to.equal(-32061);
    expect(r.text).not.to.match(/at .*\.js:\d+/);
  });
});

describe('rollup-router serve: embedded defaults, offline (what `npm start` runs)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess;

  before(async () => {
    tmp = tempDir();
    // The working directory decides where ./data/ goes.
    server = await startCli([], { PORT: '0' }, tmp.dir);
  });

  after(async () => {
    await server?.kill();
    tmp?.remove();
  });

  it('listens on 127.0.0.1 with the port from PORT', () => {
    const line = server.logs().find((l) => String(l.msg).startsWith('listening'))!;
    expect(line.host).to.equal('127.0.0.1');
    expect(line.port).to.equal(server.port).and.not.equal(8080);
  });

  it('creates the SQLite store under ./data/ of the working directory', async () => {
    expect(existsSync(join(tmp.dir, 'data', 'statuses.sqlite'))).to.equal(true);
    const r = await get(`${server.base}/ready`);
    expect(r.status, r.text).to.equal(200);
  });

  it('serves the example routes file shipped with the package', async () => {
    const example = JSON.parse(
      readFileSync(join(REPO, 'packages/server/defaults/routes.example.json'), 'utf8'),
    ) as unknown;
    const r = await rpc(`${server.base}/getRoutes`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    expect(r.json.result).to.deep.equal(example);
  });
});
