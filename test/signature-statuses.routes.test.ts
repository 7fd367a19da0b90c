import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import bs58 from 'bs58';
import { createLogger, createRpc, type Rpc } from '@rollup-router/core';
import { buildPlugins, loadConfig, UpstreamWatch, type ServerPlugins } from '@rollup-router/server';
import { randomSignature, status } from '@rollup-router/test-support/solana';
import { tempDir } from '@rollup-router/test-support/temp-dir';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { writeFileSync } from 'node:fs';

const log = createLogger({ level: 'silent' });

/**
 * statusesFromRoutes, the one feature joining the two plugins: the nodes getRoutes lists
 * as available are asked for statuses too. The plugins are built by the server from a
 * real config file; the route nodes are loopback stand-ins that answer getHealth probes
 * and getSignatureStatuses like the captured validator.
 */
describe('signature statuses: statusesFromRoutes', () => {
  let node: SolanaStandIn;
  let tmp: ReturnType<typeof tempDir>;
  let rpc: Rpc | undefined;

  beforeEach(async () => {
    node = await SolanaStandIn.start(500);
    tmp = tempDir();
  });
  afterEach(async () => {
    await rpc?.stop();
    rpc = undefined;
    await node.close();
    tmp.remove();
  });

  async function start(settings: Record<string, unknown>): Promise<ServerPlugins> {
    const route = {
      identity: bs58.encode(randomBytes(32)),
      fqdn: node.url,
      baseFee: 0,
      blockTimeMs: 50,
      countryCode: 'DEU',
    };
    const file = tmp.file('config.json');
    writeFileSync(
      file,
      JSON.stringify({
        routes: { routes: [route], allowInsecure: true, health: { intervalMs: 60_000 } },
        statuses: { store: false },
        ...settings,
      }),
    );
    const { config } = await loadConfig({ file });
    const watch = new UpstreamWatch(
      { urls: [], freshMs: 1000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      log,
    );
    const plugins = buildPlugins(config, undefined, watch);
    rpc = createRpc({ plugins: [plugins.routes, plugins.statuses], logger: log });
    await rpc.start();
    return plugins;
  }

  it('asks the available route nodes for a signature no configured upstream knows', async () => {
    const sig = randomSignature();
    node.statuses.set(sig, status('finalized', 420));
    const { routes, statuses } = await start({ statusesFromRoutes: true });
    expect(node.healthChecks).to.equal(1);
    expect(routes.registry.available().map((r) => r.fqdn)).to.deep.equal([node.url]);
    const answer = await statuses.lookup([sig]);
    expect(answer).to.deep.equal({
      context: { apiVersion: '2.2.1', slot: 500 },
      value: [status('finalized', 420)],
    });
    expect(node.requestCount).to.equal(1);
  });

  it('asks a node that is both a configured upstream and a route once', async () => {
    const sig = randomSignature();
    node.statuses.set(sig, status('confirmed', 421));
    const { statuses } = await start({
      statusesFromRoutes: true,
      statuses: { store: false, upstreams: [{ url: `${node.url}/` }] },
    });
    expect((await statuses.lookup([sig])).value).to.deep.equal([status('confirmed', 421)]);
    expect(node.requestCount).to.equal(1);
  });

  it('without statusesFromRoutes the route nodes are not asked: -32063 with no upstream', async () => {
    const { statuses } = await start({});
    const error = await statuses.lookup([randomSignature()]).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).to.have.property('code', -32063);
    expect(node.requestCount).to.equal(0);
  });
});
