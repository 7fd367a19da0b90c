// The shared tier: statuses and affinity in a real redis-server shared by two plugin
// instances (each with its own memory and its own connection, as two processes would
// have), garbage at a key, Redis down and back, wrong credentials.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import {
  signatureStatusesPlugin,
  type LookupLayer,
  type SignatureStatusesOptions,
  type SignatureStatusesPlugin,
} from '../src/index.js';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import { randomSignature, status } from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { tempDir } from '@rollup-router/test-support/temp-dir';

const PREFIX = 'test:';
/** An http URL where nothing listens: an upstream that cannot be reached. */
const UNREACHABLE = 'http://127.0.0.1:9';

describe('getSignatureStatuses: Redis shared by several instances', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let raw: Redis;
  let standIn: SolanaStandIn;
  const running: Served[] = [];

  before(async function () {
    if (!hasRedisServer()) this.skip();
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    standIn = await SolanaStandIn.start();
    raw = new Redis(redis.url, { keyPrefix: PREFIX, maxRetriesPerRequest: 1 });
  });
  afterEach(async () => {
    for (const served of running.splice(0)) await served.close();
    raw.disconnect();
    await standIn.close();
  });

  const instance = async (
    options: SignatureStatusesOptions,
    layers: LookupLayer[] = [],
    affinityTtlSeconds = 120,
  ): Promise<SignatureStatusesPlugin> => {
    const plugin = signatureStatusesPlugin({
      upstreamTimeoutMs: 500,
      redis: { url: redis.url, keyPrefix: PREFIX, commandTimeoutMs: 200, affinityTtlSeconds },
      onLookup: (layer) => layers.push(layer),
      ...options,
    });
    running.push(await serve([plugin]));
    return plugin;
  };

  it('serves a finalized status learned by one instance from another whose upstream is unreachable', async () => {
    const sig = randomSignature();
    standIn.statuses.set(sig, status('finalized', 77));
    const first = await instance({ upstreams: [{ url: standIn.url }] });
    const layers: LookupLayer[] = [];
    const second = await instance({ upstreams: [{ url: UNREACHABLE }] }, layers);

    expect((await first.lookup([sig])).value).to.deep.equal([status('finalized', 77)]);
    await waitFor(() => standIn.requestCount === 1, 'the first instance to ask its upstream');
    await waitForKey(raw, `status:${sig}`);
    expect((await second.lookup([sig])).value).to.deep.equal([status('finalized', 77)]);
    expect(layers).to.deep.equal(['redis']);
    expect(standIn.requestCount).to.equal(1);
  });

  it('shares finalized statuses only: a confirmed one may still change', async () => {
    const sig = randomSignature();
    standIn.statuses.set(sig, status('confirmed', 5));
    const first = await instance({ upstreams: [{ url: standIn.url }] });
    await first.lookup([sig]);
    expect(await raw.exists(`status:${sig}`)).to.equal(0);
  });

  it('treats garbage at a key as a miss, never as an answer or a crash, and overwrites it', async () => {
    const bad = {
      notJson: randomSignature(),
      wrongType: randomSignature(),
      schemaInvalid: randomSignature(),
      notFinalized: randomSignature(),
      errMismatch: randomSignature(),
    };
    await raw.set(`status:${bad.notJson}`, '{"slot":');
    await raw.hset(`status:${bad.wrongType}`, 'slot', '1');
    await raw.set(
      `status:${bad.schemaInvalid}`,
      JSON.stringify({ confirmationStatus: 'finalized', slot: -1 }),
    );
    await raw.set(`status:${bad.notFinalized}`, JSON.stringify(status('processed', 3)));
    await raw.set(
      `status:${bad.errMismatch}`,
      JSON.stringify({ ...status('finalized', 3), status: { Err: { InstructionError: [0, 'Custom'] } } }),
    );
    const sigs = Object.values(bad);
    for (const sig of sigs) standIn.statuses.set(sig, status('finalized', 9));
    const layers: LookupLayer[] = [];
    const plugin = await instance({ upstreams: [{ url: standIn.url }] }, layers);

    const answer = await plugin.lookup(sigs);
    expect(answer.value).to.deep.equal(sigs.map(() => status('finalized', 9)));
    expect(layers).to.deep.equal(['upstream']);
    await waitFor(() => standIn.requestCount === 1, 'one upstream request');
    for (const sig of sigs) {
      await waitForKey(raw, `status:${sig}`, (text) => text === JSON.stringify(status('finalized', 9)));
    }
  });

  it('track() on one instance makes another ask the tracked upstream first, by its name, for affinityTtlSeconds', async () => {
    const other = await SolanaStandIn.start();
    try {
      const sig = randomSignature();
      standIn.statuses.set(sig, status('confirmed', 12));
      other.statuses.set(sig, status('confirmed', 11));
      // The same two upstreams under the same names on both instances, listed in another order.
      const first = await instance(
        {
          upstreams: [
            { url: standIn.url, name: 'main' },
            { url: other.url, name: 'other' },
          ],
        },
        [],
        45,
      );
      const second = await instance({
        upstreams: [
          { url: other.url, name: 'other' },
          { url: standIn.url, name: 'main' },
        ],
      });

      expect(first.track(sig, standIn.url)).to.equal(true);
      await waitForKey(raw, `affinity:${sig}`);
      expect(await raw.get(`affinity:${sig}`)).to.equal('main');
      expect(await raw.ttl(`affinity:${sig}`)).to.be.within(1, 45);
      expect((await second.lookup([sig])).value).to.deep.equal([status('confirmed', 12)]);
      expect(standIn.askedAbout(sig)).to.equal(1);
      expect(other.askedAbout(sig)).to.equal(0);
    } finally {
      await other.close();
    }
  });

  it('writes upstream names to Redis, never a URL or its API key; a default name is the redacted URL', async () => {
    const sig = randomSignature();
    standIn.statuses.set(sig, status('confirmed', 3));
    const keyed = `${standIn.url}/secret-path-key?api-key=hunter2`;
    const plugin = await instance({ upstreams: [{ url: keyed }] });
    expect(plugin.track(sig, keyed)).to.equal(true);
    await waitForKey(raw, `affinity:${sig}`);
    const written = await raw.get(`affinity:${sig}`);
    expect(written).to.equal(`${standIn.url}/…`);
    expect(written).to.not.contain('hunter2').and.not.contain('secret-path-key');
    // Everything the instance wrote, not only the key read above.
    // (keys() matches and answers with the keyPrefix; get() adds it.)
    for (const key of await raw.keys('*')) {
      const name = key.slice(PREFIX.length);
      const text = (await raw.type(name)) === 'string' ? await raw.get(name) : '';
      expect(text ?? '', key)
        .to.not.contain('hunter2')
        .and.not.contain('secret-path-key');
    }
    expect((await plugin.lookup([sig])).value).to.deep.equal([status('confirmed', 3)]);
  });

  it('never calls an address found in Redis: a forged URL at an affinity key is a miss, its "finalized" neither served nor kept', async () => {
    // The forger: a loopback node that answers "finalized" for a signature the configured
    // upstream does not know, its URL written where a track would be.
    const forger = await SolanaStandIn.start();
    const tmp = tempDir();
    try {
      const [forged, known] = [randomSignature(), randomSignature()];
      forger.statuses.set(forged, status('finalized', 666));
      standIn.statuses.set(known, status('finalized', 5));
      await raw.set(`affinity:${forged}`, forger.url);
      await raw.set(`affinity:${known}`, `${forger.url}/`);
      const plugin = await instance({
        upstreams: [{ url: standIn.url }],
        store: { path: tmp.file('s.sqlite') },
      });

      const answer = await plugin.lookup([forged, known]);
      expect(answer.value).to.deep.equal([null, status('finalized', 5)]);
      expect(forger.requestCount).to.equal(0);
      // Both were learned in one write: once the known one is in Redis, the forged one would be too.
      await waitForKey(raw, `status:${known}`);
      expect(await raw.exists(`status:${forged}`)).to.equal(0);
      expect(plugin.store!.get(forged)).to.equal(undefined);
      expect((await plugin.lookup([forged])).value).to.deep.equal([null]);
      expect(forger.requestCount).to.equal(0);
    } finally {
      await forger.close();
      tmp.remove();
    }
  });

  it("treats anything at an affinity key that is not a configured upstream's name as a miss", async () => {
    const sig = randomSignature();
    standIn.statuses.set(sig, status('confirmed', 4));
    await raw.set(`affinity:${sig}`, 'file:///etc/passwd');
    const plugin = await instance({ upstreams: [{ url: standIn.url, name: 'main' }] });
    expect((await plugin.lookup([sig])).value).to.deep.equal([status('confirmed', 4)]);
    await raw.set(`affinity:${sig}`, 'not-configured-here');
    expect((await plugin.lookup([sig])).value).to.deep.equal([status('confirmed', 4)]);
  });

  it('answers from the local layers and upstreams while Redis is frozen or dead, and shares again once it is back', async () => {
    const plugin = await instance({ upstreams: [{ url: standIn.url }] });
    const before = randomSignature();
    standIn.statuses.set(before, status('finalized', 1));
    await plugin.lookup([before]);

    redis.pause();
    const frozen = randomSignature();
    standIn.statuses.set(frozen, status('finalized', 2));
    expect((await plugin.lookup([frozen])).value).to.deep.equal([status('finalized', 2)]);
    await redis.kill();
    const dead = randomSignature();
    standIn.statuses.set(dead, status('finalized', 3));
    expect((await plugin.lookup([dead])).value).to.deep.equal([status('finalized', 3)]);

    await redis.restart();
    raw.disconnect();
    raw = new Redis(redis.url, { keyPrefix: PREFIX, maxRetriesPerRequest: 1 });
    // ioredis reconnects by itself (backoff capped at 5 s); from then on, what is learned is
    // shared again. (What was learned while Redis was away stays in this instance's memory.)
    await waitForAsync(async () => {
      const after = randomSignature();
      standIn.statuses.set(after, status('finalized', 4));
      expect((await plugin.lookup([after])).value).to.deep.equal([status('finalized', 4)]);
      return (await raw.exists(`status:${after}`).catch(() => 0)) === 1;
    }, 'a status learned after the restart to reach Redis');
  });

  it('refuses to start with credentials Redis refuses, naming the cause', async () => {
    const locked = await startRedisServer({ password: 'right-password' });
    try {
      const plugin = signatureStatusesPlugin({
        redis: { url: locked.url.replace('right-password', 'wrong-password') },
      });
      let failure: unknown;
      try {
        await serve([plugin]);
      } catch (err) {
        failure = err;
      }
      expect(failure).to.be.instanceOf(Error);
      expect((failure as Error).name).to.equal('RedisAuthError');
      expect((failure as Error).message).to.match(/WRONGPASS/);
    } finally {
      await locked.stop();
    }
  });

  it('rejects a redis option with neither url nor client, connection settings beside a client, or a URL that is not redis://', () => {
    expect(() => signatureStatusesPlugin({ redis: {} })).to.throw(
      TypeError,
      '/redis needs either url or client',
    );
    expect(() => signatureStatusesPlugin({ redis: { client: raw, keyPrefix: 'x:' } })).to.throw(
      TypeError,
      '/redis/keyPrefix applies to url only',
    );
    expect(() => signatureStatusesPlugin({ redis: { url: 'http://x' } })).to.throw(
      TypeError,
      '/url must match pattern',
    );
  });
});

async function waitForKey(
  client: Redis,
  key: string,
  accept: (text: string) => boolean = () => true,
): Promise<void> {
  await waitForAsync(async () => {
    const text = await client.get(key).catch(() => null);
    return text !== null && accept(text);
  }, `key ${key}`);
}

async function waitForAsync(condition: () => Promise<boolean>, what: string, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
