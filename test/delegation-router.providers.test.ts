// Several base-chain providers, through the built server: validator A behind two loopback
// proxies, `alpha` (preferred) that a test makes fail, lag and recover, and `beta` that only
// counts. Reads keep working through the healthy one; /ready and /metrics show the one out;
// a write refused before any body goes to the next provider once, and counts as sent when the
// next says the chain already has it; reads are hedged, writes never.
import { createSolanaRpc } from '@solana/kit';
import { expect } from 'chai';
import { ChainProxy } from '@rollup-router/test-support/chain-proxy';
import { VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { CHAIN_URL, confirmed, fundedIdentity } from '@rollup-router/test-support/mdp';
import { signedTransfer } from '@rollup-router/test-support/signed-transfer';
import { newIdentity } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { get, rpc, sample, serveWith, tempDir, type ServerProcess } from './server.harness.js';

interface Ready {
  readonly checks: { readonly baseChainProviders?: string };
}

interface FullReady {
  readonly status: string;
  readonly checks: { readonly upstreams?: string };
  readonly reasons: readonly string[];
}

const call = (server: ServerProcess, method: string, params: unknown) =>
  rpc(`${server.base}/`, { jsonrpc: '2.0', id: 1, method, params });

const readyOf = async (server: ServerProcess): Promise<string> =>
  (JSON.parse((await get(`${server.base}/ready`)).text) as Ready).checks.baseChainProviders ?? '';

const healthyGauge = async (server: ServerProcess, name: string): Promise<number | undefined> =>
  sample(
    (await get(`${server.base}/metrics`)).text,
    `rollup_router_upstream_provider_healthy{upstream="base-chain:${name}"}`,
  );

describe('delegation router: several base-chain providers', function () {
  this.timeout(120_000);
  let alpha: ChainProxy;
  let beta: ChainProxy;
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    [alpha, beta] = await Promise.all([ChainProxy.start(), ChainProxy.start()]);
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: { routes: [] },
      delegation: {
        baseChain: {
          providers: [
            { name: 'alpha', url: alpha.url(), wsUrl: alpha.wsUrl() },
            { name: 'beta', url: beta.url(), wsUrl: beta.wsUrl() },
          ],
          maxSlotLag: 100,
          probeIntervalMs: 200,
          maxProbeIntervalMs: 400,
          hedgeAfterMs: 100,
        },
      },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
  });
  afterEach(() => {
    alpha.failHttp = undefined;
    alpha.holdHttp = undefined;
    alpha.slotLag = 0;
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    await Promise.all([alpha?.close(), beta?.close()]);
  });

  const untilHealthy = (name: string) =>
    waitFor(async () => (await readyOf(server)).includes(`${name}: healthy`), `${name} healthy`, {
      attempts: 600,
      stepMs: 50,
    });

  it('reads go to the preferred provider while it is healthy', async () => {
    await untilHealthy('alpha');
    const before = beta.httpCount('getBalance');
    const answer = await call(server, 'getBalance', [newIdentity()]);
    expect(answer.json.result, answer.text).to.have.property('value', 0);
    expect(alpha.httpCount('getBalance')).to.be.at.least(1);
    expect(beta.httpCount('getBalance')).to.equal(before);
  });

  it('a provider answering 503 is taken out: reads go on through the other, /ready and metrics show it out, it comes back', async () => {
    alpha.failHttp = () => ({ status: 503 });
    const answer = await call(server, 'getBalance', [newIdentity()]);
    expect(answer.json.result, answer.text).to.have.property('value', 0);
    await waitFor(async () => (await readyOf(server)).includes('alpha: out, failing'), 'alpha out in /ready');
    expect(await healthyGauge(server, 'alpha')).to.equal(0);
    expect(await healthyGauge(server, 'beta')).to.equal(1);
    const metrics = (await get(`${server.base}/metrics`)).text;
    expect(
      sample(metrics, 'rollup_router_upstream_requests_total{upstream="base-chain:beta",outcome="ok"}'),
      metrics,
    ).to.be.at.least(1);

    // While it is out, reads do not go to it.
    const asked = alpha.httpCount('getBalance');
    const again = await call(server, 'getBalance', [newIdentity()]);
    expect(again.json.result, again.text).to.have.property('value', 0);
    expect(alpha.httpCount('getBalance')).to.equal(asked);

    alpha.failHttp = undefined;
    await untilHealthy('alpha');
    expect(await healthyGauge(server, 'alpha')).to.equal(1);
  });

  it('a provider whose connection drops is taken out the same way', async () => {
    alpha.failHttp = () => 'reset';
    const answer = await call(server, 'getBalance', [newIdentity()]);
    expect(answer.json.result, answer.text).to.have.property('value', 0);
    await waitFor(async () => (await readyOf(server)).includes('alpha: out, failing'), 'alpha out in /ready');
    alpha.failHttp = undefined;
    await untilHealthy('alpha');
  });

  it('a provider more than maxSlotLag behind is taken out until it catches up', async () => {
    await untilHealthy('alpha');
    alpha.slotLag = 10_000;
    await waitFor(async () => (await readyOf(server)).includes('alpha: out, lagging'), 'alpha lagging', {
      attempts: 600,
      stepMs: 50,
    });
    const asked = alpha.httpCount('getBalance');
    const answer = await call(server, 'getBalance', [newIdentity()]);
    expect(answer.json.result, answer.text).to.have.property('value', 0);
    expect(alpha.httpCount('getBalance')).to.equal(asked);
    alpha.slotLag = 0;
    await untilHealthy('alpha');
  });

  it('a write refused with 503 before any body goes to the next provider, once', async () => {
    await untilHealthy('alpha');
    alpha.failHttp = (c) => (c.method === 'requestAirdrop' ? { status: 503 } : undefined);
    const [alphaBefore, betaBefore] = [alpha.httpCount('requestAirdrop'), beta.httpCount('requestAirdrop')];
    const answer = await call(server, 'requestAirdrop', [newIdentity(), 1_000_000]);
    expect(answer.json.result, answer.text).to.be.a('string');
    expect(alpha.httpCount('requestAirdrop') - alphaBefore).to.equal(1);
    expect(beta.httpCount('requestAirdrop') - betaBefore).to.equal(1);
  });

  it('a transfer the first provider landed before its 503, sent again to the next, answers its signature ("already processed")', async () => {
    await untilHealthy('alpha');
    const { wire, signature } = await signedTransfer(await fundedIdentity());
    // What a gateway that answers 503 after its node took the transaction leaves behind.
    await createSolanaRpc(CHAIN_URL).sendTransaction(wire, { encoding: 'base64' }).send();
    await confirmed(signature);
    alpha.failHttp = (c) => (c.method === 'sendTransaction' ? { status: 503 } : undefined);
    const [alphaBefore, betaBefore] = [alpha.httpCount('sendTransaction'), beta.httpCount('sendTransaction')];
    // Preflight on: A answers the second send "This transaction has already been processed".
    const answer = await call(server, 'sendTransaction', [wire, { encoding: 'base64' }]);
    expect(answer.json, answer.text).to.deep.equal({ jsonrpc: '2.0', id: 1, result: signature });
    expect(alpha.httpCount('sendTransaction') - alphaBefore).to.equal(1);
    expect(beta.httpCount('sendTransaction') - betaBefore).to.equal(1);
  });

  it('a read not answered after hedgeAfterMs is asked of the next provider too, and its answer wins', async () => {
    await untilHealthy('alpha');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    alpha.holdHttp = (c) => (c.method === 'getBalance' ? held : undefined);
    const before = beta.httpCount('getBalance');
    // Answered while alpha still holds its answer: beta's answer came first.
    const answer = await call(server, 'getBalance', [newIdentity()]);
    release();
    expect(answer.json.result, answer.text).to.have.property('value', 0);
    expect(beta.httpCount('getBalance') - before).to.equal(1);
  });

  it('never hedges a write', async () => {
    await untilHealthy('alpha');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    alpha.holdHttp = (c) => (c.method === 'requestAirdrop' || c.method === 'getBalance' ? held : undefined);
    const betaAirdrops = beta.httpCount('requestAirdrop');
    const betaReads = beta.httpCount('getBalance');
    const airdrop = call(server, 'requestAirdrop', [newIdentity(), 1_000_000]);
    await waitFor(
      () => alpha.httpCount('requestAirdrop') > 0 && alpha.httpCalls.at(-1),
      'alpha has the airdrop',
    );
    // A read sent after the write was hedged: the write has been held past hedgeAfterMs too.
    const read = await call(server, 'getBalance', [newIdentity()]);
    expect(read.json.result, read.text).to.have.property('value', 0);
    expect(beta.httpCount('getBalance') - betaReads).to.equal(1);
    release();
    const answer = await airdrop;
    expect(answer.json.result, answer.text).to.be.a('string');
    expect(beta.httpCount('requestAirdrop')).to.equal(betaAirdrops);
  });

  it('never hedges a sendTransaction: held past hedgeAfterMs, it waits for the provider that has it', async () => {
    await untilHealthy('alpha');
    const { wire, signature } = await signedTransfer(await fundedIdentity());
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    alpha.holdHttp = (c) => (c.method === 'sendTransaction' ? held : undefined);
    const betaBefore = beta.httpCount('sendTransaction');
    const sent = call(server, 'sendTransaction', [wire, { encoding: 'base64' }]);
    await waitFor(() => alpha.httpCalls.some((c) => c.first === wire), 'alpha has the transaction');
    // A read sent after it is hedged (its own hedgeAfterMs passes): the send has been held past it too.
    alpha.holdHttp = (c) => (c.method === 'sendTransaction' || c.method === 'getBalance' ? held : undefined);
    const read = await call(server, 'getBalance', [newIdentity()]);
    expect(read.json.result, read.text).to.have.property('value', 0);
    release();
    const answer = await sent;
    expect(answer.json, answer.text).to.deep.equal({ jsonrpc: '2.0', id: 1, result: signature });
    expect(beta.httpCount('sendTransaction')).to.equal(betaBefore);
  });

  it('the single-URL form is unchanged: one provider, named base-chain, no provider check in /ready', async () => {
    const single = tempDir();
    const one = await serveWith(single.dir, {
      routes: { routes: [] },
      delegation: { baseChain: { url: beta.url() } },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
    try {
      const answer = await call(one, 'getBalance', [newIdentity()]);
      expect(answer.json.result, answer.text).to.have.property('value', 0);
      expect(await readyOf(one)).to.equal('');
      const metrics = (await get(`${one.base}/metrics`)).text;
      expect(
        sample(metrics, 'rollup_router_upstream_requests_total{upstream="base-chain",outcome="ok"}'),
      ).to.be.at.least(1);
    } finally {
      await one.kill();
      single.remove();
    }
  });

  it('with base-chain calls its only upstream traffic, /ready says the base chain answered, and not ready once its providers stop', async () => {
    const own = await Promise.all([ChainProxy.start(), ChainProxy.start()]);
    const stopped = tempDir();
    const only = await serveWith(stopped.dir, {
      routes: { routes: [] },
      delegation: {
        baseChain: {
          providers: own.map((p, i) => ({ name: `p${i}`, url: p.url(), wsUrl: p.wsUrl() })),
          probeIntervalMs: 60_000,
          maxProbeIntervalMs: 60_000,
        },
      },
      statuses: { store: false },
      // No probe of its own: the delegation router's calls are the only evidence.
      readiness: { upstreamProbeIntervalMs: 0, upstreamFreshMs: 1000 },
    });
    const ready = async () => {
      const r = await get(`${only.base}/ready`);
      return { httpStatus: r.status, ...(JSON.parse(r.text) as FullReady) };
    };
    try {
      const answer = await call(only, 'getBalance', [newIdentity()]);
      expect(answer.json.result, answer.text).to.have.property('value', 0);
      const answered = await ready();
      expect(answered.httpStatus, JSON.stringify(answered)).to.equal(200);
      expect(answered.status).to.equal('ready');
      expect(answered.checks.upstreams).to.match(/^base-chain: answered \d+ ms ago$/);

      await Promise.all(own.map((p) => p.close()));
      const failed = await call(only, 'getBalance', [newIdentity()]);
      expect(failed.json.error, failed.text).to.not.equal(undefined);
      const down = await waitFor(
        async () => {
          const r = await ready();
          return r.httpStatus === 503 ? r : undefined;
        },
        'not ready once no provider answers',
        { attempts: 100, stepMs: 100 },
      );
      expect(down.checks.upstreams).to.match(/^base-chain: answered \d+ ms ago, last call \w+ \d+ ms ago$/);
      expect(down.status).to.equal('not ready');
      expect(down.reasons).to.have.length(1);
      expect(down.reasons[0]).to.match(
        /^no upstream answered in the last 1 s \(last: base-chain, \d+ s ago\)$/,
      );
    } finally {
      await only.kill();
      stopped.remove();
      await Promise.all(own.map((p) => p.close().catch(() => undefined)));
    }
  });
});
