// Several reference servers (real processes) sharing one real redis-server: one rate
// budget per client, statuses learned by any instance, track() affinity, and Redis as a
// helper that may freeze or die mid-load without a call being lost.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import {
  finalized,
  get,
  REPO,
  rpc,
  runCli,
  sample,
  signature,
  standInUpstream,
  startCli,
  tempDir,
  writeJson,
  type ServerProcess,
  type StandIn,
} from './server.harness.js';
import { waitFor } from '@rollup-router/test-support/wait-for';

const CORE = pathToFileURL(join(REPO, 'packages/core/dist/index.js')).href;
/** An upstream where nothing listens. */
const UNREACHABLE = 'http://127.0.0.1:9';

/** A plugin module that exposes the statuses plugin's track() as a method, as a sendTransaction forwarder would call it. */
const TRACK_PLUGIN = `import { defineMethod, definePlugin } from '${CORE}';
export default (_options, host) =>
  definePlugin({
    name: 'track',
    methods: [defineMethod({
      name: 'trackSignature',
      params: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string' }], minItems: 2, maxItems: 2 },
      handler: ([signature, upstream]) => host.statuses.track(signature, upstream),
    })],
  });
`;

const statusesCall = (sigs: string[], id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'getSignatureStatuses',
  params: [sigs],
});

interface Pair {
  readonly one: ServerProcess;
  readonly two: ServerProcess;
}

describe('rollup-router: several instances sharing one Redis', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let upstream: StandIn;
  let tmp: ReturnType<typeof tempDir>;
  const processes: ServerProcess[] = [];

  before(async function () {
    if (!hasRedisServer()) this.skip();
    redis = await startRedisServer();
    upstream = await standInUpstream();
    tmp = tempDir();
    writeFileSync(join(tmp.dir, 'track-plugin.mjs'), TRACK_PLUGIN);
  });
  after(async () => {
    await redis?.stop();
    await upstream?.close();
    tmp?.remove();
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.kill();
  });

  /** Two instances on one Redis; the first asks the stand-in upstream, the second an unreachable one unless told. */
  const pair = async (
    extra: Record<string, unknown> = {},
    secondUpstream = UNREACHABLE,
    keyPrefix = `${Math.random()}:`,
  ): Promise<Pair> => {
    const config = (name: string, upstreamUrl: string) =>
      writeJson(join(tmp.dir, `${name}-${keyPrefix}.json`), {
        redis: { url: redis.url, keyPrefix, commandTimeoutMs: 200 },
        plugins: ['./track-plugin.mjs'],
        readiness: { upstreamProbeIntervalMs: 0 },
        ...extra,
        statuses: {
          store: false,
          upstreams: [{ url: upstreamUrl, timeoutMs: 500 }],
          ...(extra.statuses as object | undefined),
        },
      });
    const [one, two] = await Promise.all([
      startCli(['--config', config('one', upstream.url), '--port', '0']),
      startCli(['--config', config('two', secondUpstream), '--port', '0']),
    ]);
    processes.push(one!, two!);
    return { one: one!, two: two! };
  };

  it('keeps one rate budget per client across instances, exactly, with calls racing on both', async () => {
    const { one, two } = await pair({ rateLimit: { points: 10, durationSeconds: 60 } });
    const sig = signature();
    upstream.statuses.set(sig, finalized(5));
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => rpc(`${i % 2 ? one.base : two.base}/`, statusesCall([sig], i))),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(10);
    expect(statuses.filter((s) => s === 429)).to.have.length(20);
  });

  it('serves a status learned by instance 1 from instance 2, whose upstream is unreachable', async () => {
    const { one, two } = await pair();
    const sig = signature();
    upstream.statuses.set(sig, finalized(4321));
    const asked = upstream.requestCount;
    const first = await rpc(`${one.base}/`, statusesCall([sig]));
    expect((first.json.result as { value: unknown[] }).value).to.deep.equal([finalized(4321)]);
    // The write to Redis is not awaited by the answer: wait for instance 2 to see it.
    const second = await waitFor(async () => {
      const r = await rpc(`${two.base}/`, statusesCall([sig]));
      return r.json.result ? r : undefined;
    }, 'instance 2 to answer from Redis');
    expect((second.json.result as { value: unknown[] }).value).to.deep.equal([finalized(4321)]);
    expect(upstream.requestCount - asked).to.equal(1);
    const metrics = (await get(`${two.base}/metrics`)).text;
    expect(sample(metrics, 'rollup_router_status_lookups_total{layer="redis"}')).to.be.at.least(1);
  });

  it('track() on instance 1 makes instance 2 ask the tracked upstream first, shared by name', async () => {
    const other = await standInUpstream();
    try {
      // Both instances know the same two upstreams (default names: their origins).
      const upstreams = [
        { url: other.url, timeoutMs: 500 },
        { url: upstream.url, timeoutMs: 500 },
      ];
      const { one, two } = await pair({ statuses: { upstreams } });
      const sig = signature();
      upstream.statuses.set(sig, { ...finalized(99), confirmationStatus: 'confirmed', confirmations: 3 });
      const tracked = await rpc(`${one.base}/`, {
        jsonrpc: '2.0',
        id: 1,
        method: 'trackSignature',
        params: [sig, upstream.url],
      });
      expect(tracked.json.result).to.equal(true);
      const asked = upstream.requestCount;
      // Once the track is shared (its write is not awaited), instance 2 asks the tracked
      // upstream only: a call that leaves the other one unasked.
      const answer = await waitFor(async () => {
        const before = other.askedAbout(sig);
        const r = await rpc(`${two.base}/`, statusesCall([sig]));
        return other.askedAbout(sig) === before && r.json.result ? r : undefined;
      }, 'instance 2 to follow the shared track');
      expect((answer.json.result as { value: { slot: number }[] }).value[0]!.slot).to.equal(99);
      expect(upstream.requestCount - asked).to.be.at.least(1);
    } finally {
      await other.close();
    }
  });

  it('answers every call while Redis freezes and dies mid-load, falls back to per-instance budgets, and shares again after a restart', async () => {
    const { one, two } = await pair({ rateLimit: { points: 30, durationSeconds: 60 } }, upstream.url);
    const sigs = Array.from({ length: 8 }, () => signature());
    sigs.forEach((s, i) => upstream.statuses.set(s, finalized(100 + i)));
    const ask = (base: string, i: number) => rpc(`${base}/`, statusesCall([sigs[i % sigs.length]!], i));

    redis.pause();
    // 20 calls per instance: 40 in all, over the shared budget of 30, but each instance's own budget holds 20.
    const frozen = await Promise.all(
      Array.from({ length: 40 }, (_, i) => ask(i % 2 ? one.base : two.base, i)),
    );
    expect(frozen.map((r) => r.status)).to.deep.equal(frozen.map(() => 200));
    frozen.forEach((r, i) =>
      expect((r.json.result as { value: unknown[] }).value).to.deep.equal([
        finalized(100 + (i % sigs.length)),
      ]),
    );
    await redis.kill();
    // Instance 1 has 10 calls left of its own budget of 30.
    const dead = await Promise.all(Array.from({ length: 15 }, (_, i) => ask(one.base, i)));
    expect(dead.filter((r) => r.status === 200)).to.have.length(10);
    expect(dead.filter((r) => r.status === 429)).to.have.length(5);

    const ready = await get(`${one.base}/ready`);
    expect(ready.status).to.equal(200);
    expect((JSON.parse(ready.text) as { checks: { redis: string } }).checks.redis).to.match(/^unreachable/);
    const metrics = (await get(`${one.base}/metrics`)).text;
    expect(sample(metrics, 'rollup_router_redis_up')).to.equal(0);
    expect(sample(metrics, 'rollup_router_redis_outages_total')).to.equal(1);
    // Log lines reach stdout in batches, within logFlushMs (100 ms) of being logged.
    await waitFor(
      () => one.logs().some((l) => String(l.msg).startsWith('redis unreachable')),
      'the outage logged',
    );
    expect(one.logs().filter((l) => String(l.msg).startsWith('redis unreachable'))).to.have.length(1);

    await redis.restart();
    for (const p of [one, two])
      await waitFor(
        async () => sample((await get(`${p.base}/metrics`)).text, 'rollup_router_redis_up') === 1,
        'the instance to reconnect',
        { attempts: 200, stepMs: 100 },
      );
    await waitFor(
      () => one.logs().some((l) => String(l.msg).startsWith('redis reachable again')),
      'the recovery logged',
    );
    // The restarted Redis is empty: the shared budget of 30 holds again across both.
    const shared = await Promise.all(
      Array.from({ length: 40 }, (_, i) => ask(i % 2 ? one.base : two.base, i)),
    );
    expect(shared.filter((r) => r.status === 200)).to.have.length(30);
    expect(shared.filter((r) => r.status === 429)).to.have.length(10);
  });

  it('loses nothing with two instances under autocannon, while Redis freezes, dies and comes back', async function () {
    // No memory cache: every call goes through the Redis layer, so its faults are felt.
    const { one, two } = await pair({ statuses: { memory: { maxEntries: 0 } } }, upstream.url);
    const sigs = Array.from({ length: 16 }, () => signature());
    sigs.forEach((s, i) => upstream.statuses.set(s, finalized(500 + i)));
    const load = Promise.all([one, two].map((p) => autocannon(`${p.base}/`, statusesCall(sigs))));
    // Faults while the load runs (the steps are not timed assertions, only when to inject).
    await sleep(600);
    redis.pause();
    await sleep(600);
    await redis.kill();
    await sleep(400);
    await redis.restart();
    const results = await load;
    for (const r of results) {
      expect(r.requests.total).to.be.greaterThan(0);
      expect(r.errors, 'connection errors').to.equal(0);
      expect(r.timeouts, 'timeouts').to.equal(0);
      expect(r.non2xx, 'non-2xx answers').to.equal(0);
      expect(r['2xx']).to.equal(r.requests.total);
    }
  });

  it('refuses credentials Redis refuses: check-config and the server exit 2 naming the key', async () => {
    const locked = await startRedisServer({ password: 'right-password' });
    try {
      const config = writeJson(join(tmp.dir, 'wrong-password.json'), {
        statuses: { store: false },
        redis: { url: locked.url.replace('right-password', 'wrong-password') },
      });
      const checked = await runCli(['check-config', config]);
      expect(checked.code).to.equal(2);
      expect(checked.stderr).to.include('/redis/url');
      expect(checked.stderr).to.include('Redis refused the credentials');
      expect(checked.stderr).to.not.include('wrong-password');
      const served = await runCli(['--config', config, '--port', '0']);
      expect(served.code).to.equal(2);
      expect(served.stderr).to.include('/redis/url');
      const good = writeJson(join(tmp.dir, 'good-password.json'), {
        statuses: { store: false },
        redis: { url: locked.url },
      });
      const ok = await runCli(['check-config', good]);
      expect(ok.code).to.equal(0);
      expect(ok.stdout).to.include('redis connected');
      expect(ok.stdout).to.not.include('right-password');
    } finally {
      await locked.stop();
    }
  });

  it('takes the URL from ROLLUP_ROUTER_REDIS_URL, and starts with Redis unreachable', async () => {
    const config = writeJson(join(tmp.dir, 'env.json'), { statuses: { store: false } });
    const checked = await runCli(['check-config', config], {
      ROLLUP_ROUTER_REDIS_URL: 'redis://127.0.0.1:9',
    });
    expect(checked.code).to.equal(0);
    expect(checked.stdout).to.include('redis unreachable');
    const server = await startCli(['--config', config, '--port', '0'], {
      ROLLUP_ROUTER_REDIS_URL: 'redis://127.0.0.1:9',
    });
    processes.push(server);
    const ready = await get(`${server.base}/ready`);
    expect(ready.status).to.equal(200);
    expect((JSON.parse(ready.text) as { checks: { redis: string } }).checks.redis).to.match(/^unreachable/);
  });
});

describe('rollup-router: GET /ready with the shared Redis killed', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let tmp: ReturnType<typeof tempDir>;
  const processes: ServerProcess[] = [];

  before(async function () {
    if (!hasRedisServer()) this.skip();
    redis = await startRedisServer();
    tmp = tempDir();
  });
  after(async () => {
    for (const p of processes.splice(0)) await p.kill();
    await redis?.stop();
    tmp?.remove();
  });

  const start = async (): Promise<ServerProcess> => {
    const config = writeJson(join(tmp.dir, `config-${processes.length}.json`), {
      redis: { url: redis.url },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
    const server = await startCli(['--config', config, '--port', '0']);
    processes.push(server);
    return server;
  };

  /** The public description of the link: a state and a time, never an address or a raw error. */
  const redisCheck = async (server: ServerProcess): Promise<string> => {
    const ready = await get(`${server.base}/ready`);
    return (JSON.parse(ready.text) as { checks: { redis: string } }).checks.redis;
  };

  const expectSecretFree = (check: string): void => {
    expect(check).to.match(/^unreachable since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/);
    for (const secret of [String(redis.port), '127.0.0.1', 'ECONNREFUSED', 'connect'])
      expect(check).not.to.include(secret);
  };

  it('killed under a running instance, then unreachable at start: /ready shows a state and a time; the cause is in the log only', async () => {
    const running = await start();
    expect(await redisCheck(running)).to.equal('connected');
    await redis.kill();
    await waitFor(async () => (await redisCheck(running)).startsWith('unreachable'), 'the outage seen');
    expectSecretFree(await redisCheck(running));

    // Refused from the first attempt: the raw error (ECONNREFUSED host:port) is the cause.
    const refused = await start();
    expectSecretFree(await redisCheck(refused));
    await waitFor(
      () => refused.logs().some((l) => String(l.msg).startsWith('redis unreachable')),
      'the outage logged',
    );
    const logged = refused.logs().find((l) => String(l.msg).startsWith('redis unreachable'))!;
    expect(String(logged.cause)).to.include(String(redis.port));
  });
});

interface AutocannonResult {
  readonly requests: { readonly total: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly '2xx': number;
}

/** The autocannon CLI for 3 s with 8 connections (bounded and short), its JSON report parsed. */
function autocannon(url: string, body: unknown): Promise<AutocannonResult> {
  const bin = join(REPO, 'node_modules/autocannon/autocannon.js');
  const args = [bin, '-c', '8', '-d', '3', '-m', 'POST', '-H', 'content-type=application/json'];
  const child = spawn(process.execPath, [...args, '-b', JSON.stringify(body), '--json', url], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) =>
    child.once('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as AutocannonResult)
        : reject(new Error(`autocannon exited ${code}`)),
    ),
  );
}
