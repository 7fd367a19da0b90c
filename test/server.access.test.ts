import { expect } from 'chai';
import {
  get,
  rpc,
  serveForSuite,
  serveWith,
  signature,
  standInUpstream,
  tempDir,
  type ServerProcess,
  type StandIn,
} from './server.harness.js';

const getRoutes = { jsonrpc: '2.0', id: 1, method: 'getRoutes' };

describe('rollup-router serve: rate limit per client IP', function () {
  this.timeout(60_000);
  const POINTS = 3;
  const served = serveForSuite({
    rateLimit: { points: POINTS, durationSeconds: 60 },
    statuses: { store: false },
  });

  it(`answers ${POINTS} calls, then HTTP 429 with Retry-After and -32051`, async () => {
    for (let i = 0; i < POINTS; i++) {
      const ok = await rpc(`${served.server.base}/`, getRoutes);
      expect(ok.status, `call ${i + 1}`).to.equal(200);
      expect(ok.json).to.have.property('result');
    }
    const limited = await rpc(`${served.server.base}/getRoutes`, getRoutes);
    expect(limited.status).to.equal(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.greaterThan(0).and.at.most(60);
    expect((limited.json.error as { data: { code: number } }).data.code).to.equal(-32051);
  });
});

describe('rollup-router serve: API keys', function () {
  this.timeout(60_000);
  const KEY = 'k3y-for-the-test-0001';
  // Keys from the environment, as a container would pass them.
  const served = serveForSuite(
    { statuses: { store: false } },
    { env: { ROLLUP_ROUTER_API_KEYS: `another-key-0002, ${KEY}` } },
  );

  it('the right key as a Bearer token is answered', async () => {
    const r = await rpc(`${served.server.base}/`, getRoutes, { authorization: `Bearer ${KEY}` });
    expect(r.status).to.equal(200);
    expect(r.json).to.have.property('result');
  });

  it('the right key as ?api-key= is answered', async () => {
    const r = await rpc(`${served.server.base}/getRoutes?api-key=${KEY}`, getRoutes);
    expect(r.status).to.equal(200);
    expect(r.json).to.have.property('result');
  });

  it('a wrong key is HTTP 401 with -32050', async () => {
    const r = await rpc(`${served.server.base}/`, getRoutes, { authorization: 'Bearer not-the-right-key' });
    expect(r.status).to.equal(401);
    expect((r.json.error as { data: { code: number } }).data.code).to.equal(-32050);
    expect(r.json).not.to.have.property('result');
  });

  it('no key is HTTP 401 with -32050', async () => {
    const r = await rpc(`${served.server.base}/getRoutes`, getRoutes);
    expect(r.status).to.equal(401);
    expect((r.json.error as { data: { code: number } }).data.code).to.equal(-32050);
  });

  it('the key never reaches the log', () => {
    expect(served.server.output()).not.to.include(KEY);
  });

  it('health, readiness and metrics stay reachable without a key (for probes and scrapers)', async () => {
    for (const path of ['/health', '/ready', '/metrics']) {
      const res = await fetch(`${served.server.base}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).to.equal(200);
    }
  });
});

describe('rollup-router serve: no secret reaches a log line', function () {
  this.timeout(60_000);
  const API_KEY = 'api-key-secret-5f2c9a';
  const WRONG_KEY = 'wrong-key-secret-77d1e0';
  const UPSTREAM_PASSWORD = 'upstream-password-3b8e41';
  const DEAD_PASSWORD = 'dead-upstream-password-c0ffee';
  const METRICS_TOKEN = 'metrics-token-secret-9a7b6c';
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let server: ServerProcess;

  before(async () => {
    tmp = tempDir();
    upstream = await standInUpstream();
    const withCredentials = new URL(upstream.url);
    withCredentials.username = 'reader';
    withCredentials.password = UPSTREAM_PASSWORD;
    server = await serveWith(
      tmp.dir,
      {
        apiKeys: [API_KEY],
        metrics: { token: METRICS_TOKEN },
        statuses: {
          store: false,
          // The second one refuses connections, so its failure is logged too.
          upstreams: [{ url: withCredentials.href }, { url: `http://reader:${DEAD_PASSWORD}@127.0.0.1:1/` }],
        },
        readiness: { upstreamProbeIntervalMs: 200 },
      },
      { env: { LOG_LEVEL: 'trace' } },
    );
  });

  after(async () => {
    await server?.kill();
    await upstream?.close();
    tmp?.remove();
  });

  it('API keys (header and ?api-key=), upstream URL credentials and the metrics token stay out of every line', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[signature()]] };
    expect((await rpc(`${server.base}/`, call, { authorization: `Bearer ${API_KEY}` })).status).to.equal(200);
    expect((await rpc(`${server.base}/?api-key=${API_KEY}`, call)).status).to.equal(200);
    expect((await rpc(`${server.base}/`, call, { authorization: `Bearer ${WRONG_KEY}` })).status).to.equal(
      401,
    );
    expect((await rpc(`${server.base}/?api-key=${WRONG_KEY}`, call)).status).to.equal(401);
    const scrape = await fetch(`${server.base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(scrape.status).to.equal(200);
    await scrape.text();
    expect((await get(`${server.base}/ready`)).status).to.be.oneOf([200, 503]);
    await server.kill();

    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.trim() !== '');
    // The upstreams do show up (redacted), so the scan covers lines that name them.
    expect(lines.some((l) => l.includes(new URL(upstream.url).host))).to.equal(true);
    for (const secret of [API_KEY, WRONG_KEY, UPSTREAM_PASSWORD, DEAD_PASSWORD, METRICS_TOKEN])
      for (const line of lines) expect(line, `a log line carries ${secret}`).to.not.include(secret);
  });
});
