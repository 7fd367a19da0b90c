// Who may read /metrics: a listener of its own (metrics.port) and/or a bearer token (metrics.token).
import { join } from 'node:path';
import { expect } from 'chai';
import { get, rpc, runCli, serveForSuite, writeJson, type ServerProcess } from './server.harness.js';

const getRoutes = { jsonrpc: '2.0', id: 1, method: 'getRoutes' };
const TOKEN = 'scrape-token-0123456789';

async function scrape(
  url: string,
  token?: string,
): Promise<{ status: number; text: string; auth: string | null }> {
  const res = await fetch(url, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text(), auth: res.headers.get('www-authenticate') };
}

/** The metrics listener's URL from the `listening` log line. */
function metricsUrl(server: ServerProcess): string {
  const line = server.logs().find((l) => String(l.msg).startsWith('listening'));
  return (line?.endpoints as { metrics: string }).metrics;
}

describe('rollup-router serve: /metrics on a listener of its own (metrics.port)', function () {
  this.timeout(60_000);
  const served = serveForSuite({
    statuses: { store: false },
    metrics: { host: '127.0.0.1', port: 0 },
  });

  it('the metrics listener serves /metrics; the clients’ port answers 404 for it', async () => {
    await rpc(`${served.server.base}/`, getRoutes);
    const url = metricsUrl(served.server);
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(url).not.to.include(`:${served.server.port}/`);
    const metrics = await scrape(url);
    expect(metrics.status).to.equal(200);
    expect(metrics.text).to.include('rollup_router_calls_total{method="getRoutes",code="0"} 1');
    expect((await get(`${served.server.base}/metrics`)).status).to.equal(404);
    // Probes stay on the clients' port, where the load balancer checks them.
    expect((await get(`${served.server.base}/ready`)).status).to.equal(200);
    expect((await get(url.replace('/metrics', '/ready'))).status).to.equal(404);
  });

  it('stops both listeners on SIGTERM, exit 0', async () => {
    const url = metricsUrl(served.server);
    served.server.signal('SIGTERM');
    expect(await served.server.exited).to.equal(0);
    const error = await fetch(url).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error).to.be.instanceOf(Error);
  });
});

describe('rollup-router serve: /metrics behind a bearer token (metrics.token)', function () {
  this.timeout(60_000);
  // The token from the environment, as a container would pass a secret.
  const served = serveForSuite(
    { statuses: { store: false } },
    { env: { ROLLUP_ROUTER_METRICS_TOKEN: TOKEN } },
  );

  it('without the token, or with a wrong one, /metrics is 401 with WWW-Authenticate: Bearer', async () => {
    for (const token of [undefined, 'wrong-token-0123456789', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
      const res = await scrape(`${served.server.base}/metrics`, token);
      expect(res.status, String(token)).to.equal(401);
      expect(res.auth).to.equal('Bearer');
      expect(res.text).not.to.include('rollup_router_');
    }
  });

  it('with the token, /metrics answers; /health and /ready need none', async () => {
    const res = await scrape(`${served.server.base}/metrics`, TOKEN);
    expect(res.status).to.equal(200);
    expect(res.text).to.include('rollup_router_info');
    expect((await get(`${served.server.base}/health`)).status).to.equal(200);
    expect((await get(`${served.server.base}/ready`)).status).to.equal(200);
  });

  it('the token never reaches the log', () => {
    expect(served.server.output()).not.to.include(TOKEN);
  });

  it('check-config prints the token redacted, and refuses a short one', async () => {
    const file = writeJson(join(served.dir, 'check.json'), { metrics: { token: TOKEN, port: 9100 } });
    const ok = await runCli(['check-config', file]);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).not.to.include(TOKEN);
    expect(ok.stdout).to.include('[redacted]');
    const short = await runCli([
      'check-config',
      writeJson(join(served.dir, 'short.json'), { metrics: { token: 'short' } }),
    ]);
    expect(short.code).to.equal(2);
    expect(short.stderr).to.include('/metrics/token').and.include('rule: minLength');
  });
});
