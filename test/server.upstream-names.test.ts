// Upstream names on the built server: two upstreams on one origin with different API keys
// in the path (as one provider's two keys are) are two upstreams in /metrics and /ready,
// each under its own name, and no key shows anywhere.
import { expect } from 'chai';
import {
  get,
  rpc,
  sample,
  serveForSuite,
  signature,
  standInUpstream,
  type StandIn,
} from './server.harness.js';

describe('reference server: one name per configured upstream', function () {
  this.timeout(30_000);
  let upstream: StandIn;
  const upstreamUrl = (): string => upstream.url;
  before(async () => {
    upstream = await standInUpstream();
  });
  after(() => upstream.close());

  const suite = serveForSuite({
    get statuses() {
      return {
        store: false,
        upstreams: [
          { url: `${upstreamUrl()}/key-one-secret` },
          { url: `${upstreamUrl()}/key-two-secret` },
          { url: `${upstreamUrl()}/?api-key=key-three-secret`, name: 'third' },
        ],
      };
    },
    readiness: { upstreamProbeIntervalMs: 0 },
  });

  it('gives two upstreams on one origin two metrics series and two readiness entries; an explicit name is used as is', async () => {
    const { server } = suite;
    const names = [`${upstream.url}/…`, `${upstream.url}/… #2`, 'third'];
    const answer = await rpc(`${server.base}/`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [[signature()]],
    });
    expect(answer.json.result, answer.text).to.have.property('value');
    expect(upstream.requestCount).to.equal(3);

    const metrics = (await get(`${server.base}/metrics`)).text;
    for (const name of names) {
      expect(
        sample(metrics, `rollup_router_upstream_requests_total{upstream="${name}",outcome="ok"}`),
        name,
      ).to.equal(1);
    }
    const ready = JSON.parse((await get(`${server.base}/ready`)).text) as { checks: { upstreams: string } };
    const entries = ready.checks.upstreams.split('; ');
    expect(entries.map((e) => e.slice(0, e.indexOf(': ')))).to.deep.equal(names);
    for (const entry of entries) expect(entry).to.match(/: answered \d+ ms ago$/);
    expect(metrics + JSON.stringify(ready)).to.not.match(/key-(one|two|three)-secret/);
    const listening = server.logs().find((l) => String(l.msg).startsWith('listening'));
    expect(listening?.upstreams, 'the listening line names the upstreams as /ready does').to.deep.equal(
      names,
    );
  });
});
