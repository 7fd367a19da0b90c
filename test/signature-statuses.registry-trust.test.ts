// statusesFromRoutes asks the nodes the route registry lists. With the chain source, a
// registry node is anything anyone registers in the MDP program (registration needs no
// permission), so a node may answer a call but is never trusted: its answers are not
// kept in memory, SQLite or Redis, not tracked, and never override a configured
// upstream's. The registry nodes here are real loopback JSON-RPC servers, the plugins are
// built by the server from a real config file, the store is a real SQLite file and Redis
// a real redis-server.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { createLogger, createRpc, type Rpc } from '@rollup-router/core';
import { buildPlugins, loadConfig, UpstreamWatch, type ServerPlugins } from '@rollup-router/server';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import { randomSignature, status } from '@rollup-router/test-support/solana';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { tempDir, type TempDir } from '@rollup-router/test-support/temp-dir';
import { waitFor } from '@rollup-router/test-support/wait-for';

const log = createLogger({ level: 'silent' });
const PREFIX = 'trust:';

describe('signature statuses: registry nodes may answer, are never trusted', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let raw: Redis;
  let registryNode: SolanaStandIn;
  let configured: SolanaStandIn;
  let tmp: TempDir;
  let rpc: Rpc | undefined;
  let client: Redis | undefined;

  before(async function () {
    if (!hasRedisServer()) this.skip();
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    registryNode = await SolanaStandIn.start(900);
    configured = await SolanaStandIn.start(500);
    tmp = tempDir();
    raw = new Redis(redis.url, { keyPrefix: PREFIX, maxRetriesPerRequest: 1 });
  });
  afterEach(async () => {
    await rpc?.stop();
    rpc = undefined;
    client?.disconnect();
    raw.disconnect();
    await registryNode.close();
    await configured.close();
    tmp.remove();
  });

  /** The server's plugins from a config with one configured upstream, a store, Redis and one registry node. */
  async function start(): Promise<ServerPlugins> {
    const route = {
      identity: bs58.encode(randomBytes(32)),
      fqdn: registryNode.url,
      baseFee: 0,
      blockTimeMs: 50,
      countryCode: 'DEU',
    };
    const file = tmp.file('config.json');
    writeFileSync(
      file,
      JSON.stringify({
        routes: { routes: [route], allowInsecure: true, health: { intervalMs: 60_000 } },
        statuses: { store: { path: tmp.file('statuses.sqlite') }, upstreams: [{ url: configured.url }] },
        redis: { url: redis.url, keyPrefix: PREFIX },
        statusesFromRoutes: true,
      }),
    );
    const { config } = await loadConfig({ file });
    const watch = new UpstreamWatch(
      { urls: [configured.url], freshMs: 1000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      log,
    );
    client = new Redis(redis.url, { keyPrefix: PREFIX, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    await waitFor(() => client!.status === 'ready', 'the redis client to connect');
    const plugins = buildPlugins(config, undefined, watch, client);
    rpc = createRpc({ plugins: [plugins.routes, plugins.statuses], logger: log });
    await rpc.start();
    return plugins;
  }

  it("serves a registry node's answer for the call, but keeps it nowhere: once the node is gone, the signature is unknown again", async () => {
    const [fromNode, fromConfigured] = [randomSignature(), randomSignature()];
    registryNode.statuses.set(fromNode, status('finalized', 420));
    configured.statuses.set(fromConfigured, status('finalized', 421));
    const { statuses } = await start();

    const answer = await statuses.lookup([fromNode, fromConfigured]);
    expect(answer.value).to.deep.equal([status('finalized', 420), status('finalized', 421)]);
    expect(registryNode.askedAbout(fromNode)).to.equal(1);
    // Both were learned from one fan-out: once the configured one's status is in Redis, the
    // node's would be too.
    await waitFor(
      async () => (await raw.exists(`status:${fromConfigured}`)) === 1,
      'the trusted status in Redis',
    );
    expect(await raw.exists(`status:${fromNode}`)).to.equal(0);
    expect(statuses.store!.get(fromConfigured)).to.deep.equal(status('finalized', 421));
    expect(statuses.store!.get(fromNode)).to.equal(undefined);

    await registryNode.down();
    // The configured upstream does not know it; the node is unreachable: not from memory either.
    expect((await statuses.lookup([fromNode])).value).to.deep.equal([null]);
    expect(configured.askedAbout(fromNode)).to.equal(2);
  });

  it("never lets a registry node's answer override a configured upstream's", async () => {
    const sig = randomSignature();
    configured.statuses.set(sig, status('confirmed', 100, { InstructionError: [0, { Custom: 1 }] }));
    registryNode.statuses.set(sig, status('finalized', 101));
    const { statuses } = await start();
    const answer = await statuses.lookup([sig]);
    expect(answer.value).to.deep.equal([status('confirmed', 100, { InstructionError: [0, { Custom: 1 }] })]);
    expect(registryNode.askedAbout(sig)).to.be.at.most(1);
  });

  it('never tracks a signature to a registry node: no affinity is written for it', async () => {
    const sig = randomSignature();
    const { statuses } = await start();
    expect(statuses.track(sig, registryNode.url)).to.equal(false);
    expect(statuses.track(sig, configured.url)).to.equal(true);
    await waitFor(async () => (await raw.exists(`affinity:${sig}`)) === 1, 'the configured track in Redis');
    expect(await raw.get(`affinity:${sig}`)).to.equal(configured.url);
  });
});
