// Per-key budgets through the built server and a real redis-server: named API keys with
// budgets of their own, counted in the shared Redis across two instances under the key's
// name; a keyed call charged to its key instead of its client address; plain string keys
// as before; metrics per key name, never the key.
import { join } from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { causeOf } from '@rollup-router/test-support/wire-error';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import {
  get,
  rpc,
  runCli,
  sample,
  startCli,
  tempDir,
  writeJson,
  type RpcReply,
  type ServerProcess,
} from './server.harness.js';

const PLAIN = 'plain-key-for-budgets-0001';
const KEYS = {
  alice: { key: 'alice-secret-key-0001', points: 4 },
  bob: { key: 'bob-secret-key-00000001', points: 7 },
  carol: { key: 'carol-secret-key-00001', points: 4 },
  dave: { key: 'dave-secret-key-000001', points: 7 },
} as const;
type Name = keyof typeof KEYS;
/** The client address's budget: what a plain key, a wrong key and no key share. */
const ADDRESS_POINTS = 3;
// Windows far longer than the test, so that no budget refills while it runs, however loaded the machine.
const WINDOW_SECONDS = 600;

const getRoutes = { jsonrpc: '2.0', id: 1, method: 'getRoutes' };
const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
const cause = (r: RpcReply): number | undefined => causeOf(r.json.error as { code: number } | undefined);

describe('rollup-router: per-key budgets counted in the shared Redis', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let tmp: ReturnType<typeof tempDir>;
  let one: ServerProcess;
  let two: ServerProcess;
  const keyPrefix = `budgets-${process.pid}:`;

  /** A config of these keys and address budget, counted in the shared Redis under `prefix`. */
  const configUnder = (prefix: string, file: string): string =>
    writeJson(join(tmp.dir, file), {
      redis: { url: redis.url, keyPrefix: prefix },
      statuses: { store: false },
      websocket: { port: false }, // the upgrade on the HTTP port
      rateLimit: { points: ADDRESS_POINTS, durationSeconds: WINDOW_SECONDS },
      apiKeys: [
        PLAIN,
        ...Object.entries(KEYS).map(([name, { key, points }]) => ({
          name,
          key,
          rateLimit: { points, durationSeconds: WINDOW_SECONDS },
        })),
      ],
    });

  before(async function () {
    if (!hasRedisServer()) this.skip();
    redis = await startRedisServer();
    tmp = tempDir();
    const config = configUnder(keyPrefix, 'config.json');
    [one, two] = await Promise.all([
      startCli(['--config', config, '--port', '0']),
      startCli(['--config', config, '--port', '0']),
    ]);
  });
  after(async () => {
    await one?.kill();
    await two?.kill();
    await redis?.stop();
    tmp?.remove();
  });

  /** Calls getRoutes with `name`'s key, alternating between the two instances, until one is refused; the calls answered. */
  async function spendOverHttp(name: Name): Promise<{ answered: number; refusal: RpcReply }> {
    for (let i = 0; i < 20; i++) {
      const server = i % 2 === 0 ? one : two;
      const reply = await rpc(`${server.base}/`, getRoutes, bearer(KEYS[name].key));
      if (reply.status !== 200) return { answered: i, refusal: reply };
      expect(reply.json, JSON.stringify(reply.json)).to.have.property('result');
    }
    throw new Error(`${name}'s budget was never spent`);
  }

  it('two keys with different budgets are exhausted independently over HTTP, across both instances, and neither spends the address budget', async () => {
    const alice = await spendOverHttp('alice');
    expect(alice.answered).to.equal(KEYS.alice.points);
    expect(alice.refusal.status).to.equal(429);
    expect(cause(alice.refusal)).to.equal(-32051);
    expect(Number(alice.refusal.headers.get('retry-after'))).to.be.above(0);
    // Alice's spent budget leaves Bob's whole.
    const bob = await spendOverHttp('bob');
    expect(bob.answered).to.equal(KEYS.bob.points);
    expect(bob.refusal.status).to.equal(429);
    // Eleven keyed calls from this address, and its own budget is untouched: a plain key gets all of it.
    for (let i = 0; i < ADDRESS_POINTS; i++) {
      const plain = await rpc(`${(i % 2 === 0 ? one : two).base}/`, getRoutes, bearer(PLAIN));
      expect(plain.status, `plain-key call ${i + 1}`).to.equal(200);
      expect(plain.json).to.have.property('result');
    }
    const spent = await rpc(`${one.base}/`, getRoutes, bearer(PLAIN));
    expect(spent.status).to.equal(429);
    // Alice is still refused on either instance: one budget in Redis, not one per instance.
    expect((await rpc(`${two.base}/`, getRoutes, bearer(KEYS.alice.key))).status).to.equal(429);
  });

  it('a wrong key is charged to the address before its key is read: guesses spend it, then a plain key is refused too', async () => {
    // An instance of its own prefix: this address's budget there is whole, whatever the tests above spent.
    const fresh = await startCli([
      '--config',
      configUnder(`${keyPrefix}guesses:`, 'guesses.json'),
      '--port',
      '0',
    ]);
    try {
      const guess = () => rpc(`${fresh.base}/`, getRoutes, bearer(`${KEYS.dave.key}x`));
      for (let i = 1; i <= ADDRESS_POINTS; i++) {
        const wrong = await guess();
        expect(wrong.status, `guess ${i}`).to.equal(401);
        expect(wrong.json).to.have.property('error');
      }
      const spent = await guess();
      expect(spent.status).to.equal(429);
      expect(cause(spent)).to.equal(-32051);
      // The guesses spent what a plain key from this address would have had.
      const plain = await rpc(`${fresh.base}/`, getRoutes, bearer(PLAIN));
      expect(plain.status).to.equal(429);
      expect(cause(plain)).to.equal(-32051);
    } finally {
      await fresh.kill();
    }
  });

  /** Opens a socket with `name`'s key (its upgrade costs a point) and calls until refused; the calls answered and the refusal. */
  async function spendOverWebSocket(
    name: Name,
    server: ServerProcess,
  ): Promise<{ answered: number; refusal: { code: number | undefined; message: string } }> {
    const url = `${server.base.replace('http', 'ws')}/`;
    // As the SDKs pass it: in the URL's query string.
    const socket = await TestSocket.open(`${url}?api-key=${KEYS[name].key}`);
    try {
      for (let id = 1; id <= 20; id++) {
        const answer = await socket.call('getRoutes', [], id);
        expect(answer.id).to.equal(id);
        if (answer.error !== undefined) {
          return {
            answered: id - 1,
            refusal: { code: causeOf(answer.error), message: answer.error.message },
          };
        }
      }
    } finally {
      await socket.close();
    }
    throw new Error(`${name}'s budget was never spent`);
  }

  it('two keys with different budgets are exhausted independently over WebSocket: the upgrade and each message cost their key a point', async () => {
    const carol = await spendOverWebSocket('carol', one);
    expect(carol.answered).to.equal(KEYS.carol.points - 1);
    expect(carol.refusal.code).to.equal(-32051);
    const dave = await spendOverWebSocket('dave', two);
    expect(dave.answered).to.equal(KEYS.dave.points - 1);
    expect(dave.refusal.code).to.equal(-32051);
    // Carol's budget is spent on the other instance too: her next upgrade is refused there.
    const again = await rpc(`${two.base}/`, getRoutes, bearer(KEYS.carol.key));
    expect(again.status).to.equal(429);
  });

  it("metrics count each key's points and refusals by its name, never the key", async () => {
    const metrics = (await get(`${one.base}/metrics`)).text;
    const points = (name: Name) => sample(metrics, `rollup_router_api_key_points_total{key="${name}"}`) ?? 0;
    const refusals = (name: Name) =>
      sample(metrics, `rollup_router_api_key_refusals_total{key="${name}"}`) ?? 0;
    // Instance one took half of alice's and bob's HTTP calls and all of carol's socket.
    expect(points('alice')).to.be.above(0);
    expect(points('carol')).to.equal(KEYS.carol.points + 1);
    expect(refusals('carol')).to.equal(1);
    expect(refusals('alice') + refusals('bob')).to.be.at.least(1);
    for (const { key } of Object.values(KEYS)) expect(metrics).not.to.include(key);
    expect(metrics).not.to.include(PLAIN);
  });

  it('Redis holds each key budget under its name, and no key', async () => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      const stored = await client.keys(`${keyPrefix}*`);
      expect(stored).to.include.members(
        ['alice', 'bob', 'carol', 'dave'].map((n) => `${keyPrefix}rate-key:${n}`),
      );
      const everything = (await client.keys('*')).join('\n');
      for (const { key } of Object.values(KEYS)) expect(everything).not.to.include(key);
      expect(everything).not.to.include(PLAIN);
    } finally {
      client.disconnect();
    }
  });

  it('the keys never reach the log', () => {
    for (const server of [one, two]) {
      for (const { key } of Object.values(KEYS)) expect(server.output()).not.to.include(key);
    }
  });
});

describe('rollup-router: apiKeys and perMethod mistakes stop the start', function () {
  this.timeout(30_000);
  let tmp: ReturnType<typeof tempDir>;
  before(() => (tmp = tempDir()));
  after(() => tmp?.remove());

  const start = (config: unknown) =>
    runCli(['--config', writeJson(join(tmp.dir, 'config.json'), config), '--port', '0']);

  it('a perMethod name no method has exits 2 naming it', async () => {
    const run = await start({
      statuses: { store: false },
      perMethod: { getRoutse: { cost: 2 }, getRoutes: { cost: 3 } },
    });
    expect(run.code).to.equal(2);
    expect(run.stdout + run.stderr).to.include(
      'perMethod names methods this service does not serve: getRoutse',
    );
  });

  it('two keys of one name exit 2 naming it, and no key', async () => {
    const run = await start({
      statuses: { store: false },
      apiKeys: [
        { name: 'alice', key: KEYS.alice.key },
        { name: 'alice', key: KEYS.bob.key },
      ],
    });
    expect(run.code).to.equal(2);
    expect(run.stdout + run.stderr).to.include('listed twice: alice');
    expect(run.stdout + run.stderr).not.to.include(KEYS.alice.key);
  });
});
