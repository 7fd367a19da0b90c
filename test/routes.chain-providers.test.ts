// routes.chain with several providers, against the real MDP program on validator A, each
// provider a loopback proxy in front of A. Reads go to a healthy provider, the websocket to
// the provider preferred when it (re)connects; with the preferred one failing or gone, the
// registry's records are still read and followed live through the other. The reference
// server shares the list with the delegation router when delegation.baseChain is not set.
import { expect } from 'chai';
import type { KeyPairSigner } from '@solana/kit';
import { RouteRegistry, type RouteEntry } from '@rollup-router/routes';
import type { ChainProvider } from '@rollup-router/solana';
import { ChainProxy } from '@rollup-router/test-support/chain-proxy';
import { memoryLog } from '@rollup-router/test-support/http';
import {
  fundedIdentity,
  recordAddress,
  register,
  unregister,
  validatorBIdentity,
} from '@rollup-router/test-support/mdp';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { get, sample, serveWith, tempDir } from './server.harness.js';

// Generous: the failed provider is first tried, then taken out, and a websocket that could
// not connect comes back after the pool's backoff.
const SOON = { attempts: 3000, stepMs: 10 };

describe('routes: the chain registry through several providers', function () {
  this.timeout(90_000);
  let bIdentity: string;
  let alpha: ChainProxy;
  let beta: ChainProxy;
  /** The providers' list, taken while both listen (a test may close alpha). */
  let providers: [ChainProvider, ChainProvider];
  const registries: RouteRegistry[] = [];
  const registered = new Set<KeyPairSigner>();

  before(async function () {
    try {
      bIdentity = await validatorBIdentity();
    } catch (err) {
      console.log(`      (validator B is not reachable: ${(err as Error).message})`);
      this.skip();
    }
  });
  beforeEach(async () => {
    [alpha, beta] = await Promise.all([ChainProxy.start(), ChainProxy.start()]);
    providers = [
      { name: 'alpha', url: alpha.url(), wsUrl: alpha.wsUrl() },
      { name: 'beta', url: beta.url(), wsUrl: beta.wsUrl() },
    ];
  });
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((r) => r.stop()));
    await Promise.all([alpha, beta].map((p) => p.close().catch(() => undefined)));
  });
  after(async () => {
    for (const signer of registered) await unregister(signer);
  });

  async function chainRegistry(): Promise<RouteRegistry> {
    const registry = new RouteRegistry({
      allowInsecure: true,
      chain: {
        providers,
        probeIntervalMs: 200,
        maxProbeIntervalMs: 400,
        allowPrivateAddresses: true,
      },
    });
    registries.push(registry);
    await registry.start({ log: memoryLog().log });
    return registry;
  }

  const listed = (registry: RouteRegistry, identity: string): RouteEntry | undefined =>
    registry.available().find((e) => e.identity === identity);

  async function registeredNode(addr: string): Promise<KeyPairSigner> {
    const signer = await fundedIdentity();
    await register(signer, { addr });
    registered.add(signer);
    return signer;
  }

  it('reads and follows through the preferred provider while it is healthy', async () => {
    const registry = await chainRegistry();
    await waitFor(() => listed(registry, bIdentity), "B's record", SOON);
    expect(alpha.httpCount('getProgramAccounts')).to.be.greaterThan(0);
    expect(beta.httpCount('getProgramAccounts')).to.equal(0);
    expect(alpha.wsCount('programSubscribe')).to.be.greaterThan(0);
  });

  it('with the preferred provider answering 503, records are read through the other and changes still show', async () => {
    alpha.failHttp = () => ({ status: 503 });
    const registry = await chainRegistry();
    await waitFor(() => listed(registry, bIdentity), "B's record", SOON);
    expect(beta.httpCount('getProgramAccounts')).to.be.greaterThan(0);
    const node = await registeredNode('http://127.0.0.1:1/through-beta');
    await waitFor(() => listed(registry, node.address), 'the new record', SOON);
    expect(registry.readiness()).to.deep.equal({ ready: true });
  });

  it('with the preferred provider gone (connection refused), the websocket goes to the other: a registration shows live', async () => {
    await alpha.close();
    const registry = await chainRegistry();
    await waitFor(() => listed(registry, bIdentity), "B's record", SOON);
    await waitFor(() => beta.wsCount('programSubscribe') > 0, 'programSubscribe through beta', SOON);
    const node = await registeredNode('http://127.0.0.1:1/live-through-beta');
    await waitFor(() => listed(registry, node.address), 'the new record', SOON);
    // Its record is followed over beta's websocket: the only one there is.
    const record = await recordAddress(node.address);
    await waitFor(() => beta.wsCount('accountSubscribe', record) > 0, 'the record followed', SOON);
  });

  it('the reference server gives routes.chain.providers to the delegation router too: /ready shows both', async () => {
    const dir = tempDir();
    const server = await serveWith(dir.dir, {
      routes: {
        allowInsecure: true,
        chain: {
          providers,
          probeIntervalMs: 200,
          allowPrivateAddresses: true,
        },
      },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
    try {
      const ready = JSON.parse((await get(`${server.base}/ready`)).text) as {
        checks: { baseChainProviders?: string };
      };
      expect(ready.checks.baseChainProviders).to.match(/alpha: \w+/);
      expect(ready.checks.baseChainProviders).to.match(/beta: \w+/);
    } finally {
      await server.kill();
      dir.remove();
    }
  });

  it("the reference server shows the route registry's own view of its providers in /ready and the provider gauge", async () => {
    // Only the registry's reads fail on alpha (the delegation router never reads the whole
    // program): the registry takes alpha out, the delegation router's own set keeps it.
    alpha.failHttp = (c) => (c.method === 'getProgramAccounts' ? { status: 503 } : undefined);
    const dir = tempDir();
    const server = await serveWith(dir.dir, {
      routes: {
        allowInsecure: true,
        chain: {
          providers,
          probeIntervalMs: 60_000,
          maxProbeIntervalMs: 60_000,
          allowPrivateAddresses: true,
        },
      },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
    try {
      const checks = async () =>
        (
          JSON.parse((await get(`${server.base}/ready`)).text) as {
            checks: Record<string, string | undefined>;
          }
        ).checks;
      await waitFor(
        async () =>
          (await checks()).chainRegistryProviders?.includes('alpha: out, failing (HTTP 503)') === true,
        'alpha out in the registry providers check',
        SOON,
      );
      const ready = await checks();
      expect(ready.chainRegistryProviders).to.equal('alpha: out, failing (HTTP 503); beta: healthy');
      expect(ready.baseChainProviders).to.equal('alpha: healthy; beta: healthy');
      const metrics = (await get(`${server.base}/metrics`)).text;
      const gauge = (upstream: string) =>
        sample(metrics, `rollup_router_upstream_provider_healthy{upstream="${upstream}"}`);
      expect(gauge('chain-registry:alpha'), metrics).to.equal(0);
      expect(gauge('chain-registry:beta')).to.equal(1);
      expect(gauge('base-chain:alpha')).to.equal(1);
      expect(gauge('base-chain:beta')).to.equal(1);
    } finally {
      await server.kill();
      dir.remove();
    }
  });

  it('the one-URL form shows no registry providers check', async () => {
    const dir = tempDir();
    const server = await serveWith(dir.dir, {
      routes: { allowInsecure: true, chain: { url: beta.url(), allowPrivateAddresses: true } },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
    try {
      const ready = JSON.parse((await get(`${server.base}/ready`)).text) as {
        checks: Record<string, unknown>;
      };
      expect(ready.checks).not.to.have.property('chainRegistryProviders');
      expect((await get(`${server.base}/metrics`)).text).not.to.include('upstream="chain-registry:');
    } finally {
      await server.kill();
      dir.remove();
    }
  });
});
