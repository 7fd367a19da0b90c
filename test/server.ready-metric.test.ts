// rollup_router_ready: what GET /ready answers, as a gauge, so an alert can say which instance a load balancer left out.
import { createServer } from 'node:net';
import { expect } from 'chai';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { get, sample, serveForSuite } from './server.harness.js';

/** A loopback port nobody listens on: an upstream there never answers, so /ready says not ready. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

describe('rollup-router serve: rollup_router_ready follows GET /ready', function () {
  this.timeout(60_000);

  describe('a ready instance', () => {
    const served = serveForSuite({ statuses: { store: false } });
    it('exports rollup_router_ready 1 while /ready answers 200', async () => {
      expect((await get(`${served.server.base}/ready`)).status).to.equal(200);
      const metrics = (await get(`${served.server.base}/metrics`)).text;
      expect(sample(metrics, 'rollup_router_ready')).to.equal(1);
    });
  });

  describe('an instance whose every upstream is down', () => {
    let port = 0;
    before(async () => (port = await deadPort()));
    const served = serveForSuite({
      statuses: {
        store: false,
        upstreams: [
          {
            get url() {
              return `http://127.0.0.1:${port}`;
            },
          },
        ],
      },
      readiness: { upstreamFreshMs: 1000, upstreamProbeIntervalMs: 200, upstreamProbeTimeoutMs: 200 },
    });
    it('exports rollup_router_ready 0 while /ready answers 503', async () => {
      await waitFor(async () => (await get(`${served.server.base}/ready`)).status === 503, '/ready 503', {
        attempts: 100,
        stepMs: 100,
      });
      const metrics = (await get(`${served.server.base}/metrics`)).text;
      expect(sample(metrics, 'rollup_router_ready')).to.equal(0);
    });
  });
});
