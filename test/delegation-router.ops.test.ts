// What operations see of the delegation router, through the built server: its calls to the
// base chain and the ERs in /metrics under one label scheme (bounded: an ER the operator did
// not name is `er:other`), the relay and the record follower as gauges, and the base chain
// in /ready.
import { expect } from 'chai';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { validatorBIdentity } from '@rollup-router/test-support/mdp';
import { freePortPair } from '@rollup-router/test-support/reusable-port';
import { newIdentity } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import { join } from 'node:path';
import {
  get,
  rpc,
  runCli,
  sample,
  serveWith,
  signature,
  tempDir,
  writeJson,
  type ServerProcess,
} from './server.harness.js';

const B_URL = 'http://127.0.0.1:18899';

interface Ready {
  readonly status: string;
  readonly reasons?: readonly string[];
  readonly checks: { readonly upstreams: string };
}

const call = (server: ServerProcess, method: string, params: unknown) =>
  rpc(`${server.base}/`, { jsonrpc: '2.0', id: 1, method, params });

const metricsOf = async (server: ServerProcess): Promise<string> =>
  (await get(`${server.base}/metrics`)).text;

describe('delegation router: what operations see', function () {
  this.timeout(60_000);

  describe('with the base chain down (a closed port)', () => {
    let server: ServerProcess;
    let dir: ReturnType<typeof tempDir>;

    before(async () => {
      const closed = await freePortPair();
      dir = tempDir();
      server = await serveWith(dir.dir, {
        routes: { routes: [] },
        delegation: { baseChain: { url: `http://127.0.0.1:${closed}` } },
        statuses: { store: false },
        // No probes: what /ready says comes from the router's own calls.
        readiness: { upstreamProbeIntervalMs: 0 },
      });
    });
    after(async () => {
      await server?.kill();
      dir?.remove();
    });

    it('its calls show in /metrics under base-chain as unreachable, and /ready names it and why', async () => {
      const answer = await call(server, 'getAccountInfo', [newIdentity(), { encoding: 'base64' }]);
      const error = answer.json.error as { data?: { code?: number } } | undefined;
      expect(error?.data?.code, answer.text).to.equal(-32071);

      const metrics = await metricsOf(server);
      // The calls metric counts the cause (data.code): what the alert rules read.
      expect(sample(metrics, 'rollup_router_calls_total{method="getAccountInfo",code="-32071"}')).to.equal(1);
      const failed = 'rollup_router_upstream_failures_total{upstream="base-chain",outcome="unreachable"}';
      expect(sample(metrics, failed), metrics).to.be.at.least(1);
      expect(
        sample(metrics, 'rollup_router_upstream_requests_total{upstream="base-chain",outcome="unreachable"}'),
      ).to.be.at.least(1);
      expect(
        sample(metrics, 'rollup_router_upstream_request_duration_seconds_count{upstream="base-chain"}'),
      ).to.be.at.least(1);

      const ready = await get(`${server.base}/ready`);
      expect(ready.status).to.equal(503);
      const body = JSON.parse(ready.text) as Ready;
      expect(body.checks.upstreams).to.match(
        /^base-chain: none answered yet, last call unreachable \d+ ms ago$/,
      );
      expect(body.reasons).to.deep.equal(['no upstream has answered yet']);
    });
  });

  it('refuses the base chain among statuses.upstreams under another name: its calls would be two series', async () => {
    const dir = tempDir();
    try {
      const file = writeJson(join(dir.dir, 'config.json'), {
        routes: { routes: [] },
        delegation: { baseChain: { url: VALIDATOR_A } },
        statuses: { store: false, upstreams: [{ url: VALIDATOR_A, name: 'mainnet' }] },
      });
      for (const args of [
        ['check-config', file],
        ['--config', file, '--port', '0'],
      ]) {
        const run = await runCli(args);
        expect(run.code, run.stdout + run.stderr).to.equal(2);
        expect(run.stdout + run.stderr).to.include(
          "/statuses/upstreams/0 is the delegation router's base chain: leave its name out or name it base-chain",
        );
      }
    } finally {
      dir.remove();
    }
  });

  describe('with the base chain and two ERs, one of them allow-listed', () => {
    let base: DelegationChain;
    let named: DelegationChain;
    let unnamed: DelegationChain;
    let b: string;
    const unnamedIdentity = newIdentity();
    let server: ServerProcess;
    let dir: ReturnType<typeof tempDir>;

    before(async function () {
      await skipUnlessValidatorA(this, VALIDATOR_A);
      b = await validatorBIdentity();
      base = await DelegationChain.start(VALIDATOR_A);
      named = await DelegationChain.start(B_URL);
      unnamed = await DelegationChain.start(VALIDATOR_A);
      dir = tempDir();
      server = await serveWith(dir.dir, {
        routes: {
          routes: [
            { identity: b, fqdn: named.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
            { identity: unnamedIdentity, fqdn: unnamed.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
          ],
          allowInsecure: true,
        },
        delegation: {
          baseChain: { url: base.url, wsUrl: base.wsUrl },
          delegations: { ttlMs: 600_000, followedTtlMs: 600_000 },
          identity: { allow: [b] },
        },
        // The base chain listed without a name: it is base-chain for the statuses plugin too.
        statuses: { store: false, upstreams: [{ url: base.url }] },
        // The route table's nodes are asked for statuses too: under the same labels.
        statusesFromRoutes: true,
        readiness: { upstreamProbeIntervalMs: 0 },
        websocket: { port: false },
      });
    });
    after(async () => {
      await server?.kill();
      dir?.remove();
      await base?.close();
      await named?.close();
      await unnamed?.close();
    });

    it("the router's calls are labelled base-chain and er:<identity> for the allow-listed ER", async () => {
      const account = newIdentity();
      await base.delegate(account, b);
      const answer = await call(server, 'getBlockhashForAccounts', [[account]]);
      expect(answer.json.result, answer.text).to.have.property('blockhash');

      const metrics = await metricsOf(server);
      const ok = (upstream: string) =>
        sample(metrics, `rollup_router_upstream_requests_total{upstream="${upstream}",outcome="ok"}`);
      expect(ok(`er:${b}`), metrics).to.be.at.least(1);
      expect(ok('base-chain')).to.be.at.least(1);

      // The router's own answers are evidence for /ready.
      const ready = JSON.parse((await get(`${server.base}/ready`)).text) as Ready;
      expect(ready.checks.upstreams).to.match(/^base-chain: answered \d+ ms ago$/);
    });

    it("the ER outside the allow-list is er:other: the statuses plugin's calls to the route table's nodes are under the same labels", async () => {
      const requests = (metrics: string, upstream: string) =>
        sample(metrics, `rollup_router_upstream_requests_total{upstream="${upstream}",outcome="ok"}`) ?? 0;
      const before = await metricsOf(server);
      const answer = await call(server, 'getSignatureStatuses', [[signature()]]);
      expect(answer.json.result, answer.text).to.have.property('value');
      const after = await metricsOf(server);
      expect(requests(after, 'er:other') - requests(before, 'er:other')).to.equal(1);
      expect(requests(after, `er:${b}`) - requests(before, `er:${b}`)).to.equal(1);
      expect(requests(after, 'base-chain') - requests(before, 'base-chain')).to.equal(1);
      const upstreamSeries = after.split('\n').filter((l) => l.includes('upstream='));
      for (const chain of [base, named, unnamed]) expect(upstreamSeries.join('\n')).to.not.include(chain.url);
      expect(
        upstreamSeries.join('\n'),
        'no upstream series names the ER outside the allow-list',
      ).to.not.include(unnamedIdentity);
    });

    it('relayed subscriptions, per upstream socket, and the records followed are gauges', async () => {
      const account = newIdentity();
      await base.delegate(account, b);
      const socket = await TestSocket.open(server.base.replace('http', 'ws'));
      try {
        const subscribed = await socket.call('accountSubscribe', [account, { encoding: 'base64' }]);
        expect(subscribed.result, JSON.stringify(subscribed)).to.be.a('number');
        let metrics = '';
        await waitFor(async () => {
          metrics = await metricsOf(server);
          return sample(metrics, `rollup_router_relayed_upstream_subscriptions{upstream="er:${b}"}`) === 1;
        }, 'the subscription relayed to the allow-listed ER');
        expect(sample(metrics, 'rollup_router_relayed_subscriptions')).to.equal(1);
        expect(
          sample(metrics, 'rollup_router_relayed_upstream_subscriptions{upstream="base-chain"}'),
        ).to.equal(1);
        expect(sample(metrics, 'rollup_router_relayed_upstream_subscriptions{upstream="er:other"}')).to.equal(
          0,
        );
        expect(sample(metrics, 'rollup_router_delegation_records_followed')).to.be.at.least(1);
      } finally {
        await socket.close();
      }
      await waitFor(
        async () => sample(await metricsOf(server), 'rollup_router_relayed_subscriptions') === 0,
        'released when its client leaves',
      );
    });
  });
});
