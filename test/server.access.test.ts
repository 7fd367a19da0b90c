import { join } from 'node:path';
import { expect } from 'chai';
import { rpc, startCli, tempDir, writeJson, type ServerProcess } from './server.harness.js';

const getRoutes = { jsonrpc: '2.0', id: 1, method: 'getRoutes' };

describe('rollup-router serve: rate limit per client IP', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  const POINTS = 3;

  before(async () => {
    tmp = tempDir();
    const config = writeJson(join(tmp.dir, 'config.json'), {
      rateLimit: { points: POINTS, durationSeconds: 60 },
      statuses: { store: false },
    });
    server = await startCli(['--config', config, '--port', '0']);
  });

  after(async () => {
    await server?.kill();
    tmp?.cleanup();
  });

  it(`answers ${POINTS} calls, then HTTP 429 with Retry-After and -32051`, async () => {
    for (let i = 0; i < POINTS; i++) {
      const ok = await rpc(`${server.base}/`, getRoutes);
      expect(ok.status, `call ${i + 1}`).to.equal(200);
      expect(ok.json).to.have.property('result');
    }
    const limited = await rpc(`${server.base}/getRoutes`, getRoutes);
    expect(limited.status).to.equal(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.greaterThan(0).and.at.most(60);
    expect((limited.json.error as { code: number }).code).to.equal(-32051);
  });
});

describe('rollup-router serve: API keys', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  const KEY = 'k3y-for-the-test-0001';

  before(async () => {
    tmp = tempDir();
    const config = writeJson(join(tmp.dir, 'config.json'), { statuses: { store: false } });
    // Keys from the environment, as a container would pass them.
    server = await startCli(['--config', config, '--port', '0'], {
      ROLLUP_ROUTER_API_KEYS: `another-key-0002, ${KEY}`,
    });
  });

  after(async () => {
    await server?.kill();
    tmp?.cleanup();
  });

  it('the right key as a Bearer token is answered', async () => {
    const r = await rpc(`${server.base}/`, getRoutes, { authorization: `Bearer ${KEY}` });
    expect(r.status).to.equal(200);
    expect(r.json).to.have.property('result');
  });

  it('the right key as ?api-key= is answered', async () => {
    const r = await rpc(`${server.base}/getRoutes?api-key=${KEY}`, getRoutes);
    expect(r.status).to.equal(200);
    expect(r.json).to.have.property('result');
  });

  it('a wrong key is HTTP 401 with -32050', async () => {
    const r = await rpc(`${server.base}/`, getRoutes, { authorization: 'Bearer not-the-right-key' });
    expect(r.status).to.equal(401);
    expect((r.json.error as { code: number }).code).to.equal(-32050);
    expect(r.json).not.to.have.property('result');
  });

  it('no key is HTTP 401 with -32050', async () => {
    const r = await rpc(`${server.base}/getRoutes`, getRoutes);
    expect(r.status).to.equal(401);
    expect((r.json.error as { code: number }).code).to.equal(-32050);
  });

  it('the key never reaches the log', () => {
    expect(server.output()).not.to.include(KEY);
  });

  it('health, readiness and metrics stay reachable without a key (for probes and scrapers)', async () => {
    for (const path of ['/health', '/ready', '/metrics']) {
      const res = await fetch(`${server.base}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).to.equal(200);
    }
  });
});
