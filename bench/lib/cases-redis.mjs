// The rows of several instances: (a) one instance vs two instances sharing a Redis on the
// same machine, the load generator spreading its connections over both; (b) what the Redis
// layer adds to one call's latency, on a miss (Redis asked, the upstream answers) and on a
// hit (an instance answering what another one learned). Each row says which instances
// serve it: `instances` are measured; the hit's `before` has another instance learn the
// primed signature, and stop, before the rounds (group.mjs). Full run only.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { hasRedisServer, redisArgs, untilRedisReady } from '../../test/support/redis-launch.mjs';
import { benchSignatures } from '../targets/lib/fixtures.mjs';
import { STANDIN } from './cases-baseline.mjs';
import { SECURITY_HEADERS } from './cases-ours.mjs';
import { rpcCall } from './peers.mjs';
import { freePort, startProcess } from './processes.mjs';
import { expectStatuses, tenRoutes } from './checks.mjs';
import { freshSignatureBodies, getRoutes, getSignatureStatuses, post } from './requests.mjs';
import { waitUntil } from './subscribers.mjs';

/** A real redis-server on a free port, no persistence, pinned with our servers; `{ absent }` when it cannot run. */
export async function startRedisServer() {
  if (!hasRedisServer()) return { absent: 'redis-server is not installed (apt-get install redis-server)' };
  const port = await freePort();
  const redis = startProcess('redis-server', redisArgs(port, tmpdir()));
  try {
    await untilRedisReady(redis.child);
  } catch (err) {
    await redis.stop();
    return { absent: err.message };
  }
  const hasKey = (key) =>
    spawnSync('redis-cli', ['-p', String(port), 'EXISTS', key], { encoding: 'utf8' }).stdout.trim() === '1';
  return { url: `redis://127.0.0.1:${port}`, pid: redis.child.pid, hasKey, stop: redis.stop };
}

/** A `before`: instance 1 (`target`) learns `sigs` from the upstream, Redis gets them (the default key prefix), it stops. */
const learnedByInstance1 = (target, sigs) => async (start, redis) => {
  const learner = await start(target);
  try {
    if (learner.absent) throw new Error(learner.absent);
    await rpcCall(learner.url, getSignatureStatuses(sigs), 10_000);
    if (!(await waitUntil(() => sigs.every((s) => redis.hasKey(`rollup-router:status:${s}`)), 5000)))
      throw new Error('instance 1 answered but Redis did not get the status in 5 s');
  } finally {
    await learner.stop();
  }
};

/** The reference server with production settings as one instance: `statuses` chain, `redis`, rate limit. */
const instance = (statuses, redis, rateLimit) => ({
  script: 'server.mjs',
  args: ['--settings', 'production', '--statuses', statuses, '--rate-limit', rateLimit ? 'on' : 'off'],
  upstream: STANDIN,
  redis,
});

/** (a): `what` served by one instance alone, one with Redis, and two sharing Redis. */
function scaleRows(name, what, body, fields) {
  const id = (k) => `scale.${k}.${name}`;
  const [alone, shared] = [false, true].map((redis) => instance('memory-only', redis, true));
  const row = (k, how, instances, vs) => ({
    id: id(k),
    what: `${what}, ${how}, rate limit`,
    instances,
    requests: [...post(body), ...post(body)], // autocannon takes a list of URLs only with a list of requests
    headers: SECURITY_HEADERS,
    same: true,
    vs,
    ...fields,
  });
  return [
    row('one', '1 instance, no Redis', [alone]),
    row('one-redis', '1 instance + Redis', [shared], [id('one')]),
    row('two-redis', '2 instances + Redis', [shared, shared], [id('one'), id('one-redis')]),
  ];
}

/** (b): one connection, so the figures are a call's latency, not queueing. */
function latencyRows(known) {
  const none = (redis) => instance('upstream', redis, false);
  const knownAnswer = {
    requests: post(getSignatureStatuses(known)),
    check: expectStatuses(1, { allKnown: true }),
    same: true,
  };
  const miss = (redis) => {
    const request = { path: '/', bodies: [] };
    return {
      id: `redis.miss.${redis ? 'on' : 'off'}-1`,
      what: `miss, 1 new signature: ${redis ? 'Redis, then upstream' : 'upstream, no Redis'}; no memory/store`,
      instances: [none(redis)],
      layer: 'upstream',
      fresh: true,
      requests: [request],
      // Before each round, signatures never asked, more than it can send (1 connection): a miss stays a miss.
      refill: (s) => {
        request.bodies = freshSignatureBodies(
          Math.ceil(3000 * (s.duration + Math.max(s.warmup, s.roundWarmup))),
          1,
        );
      },
      check: expectStatuses(1, { allKnown: true }),
      vs: redis ? ['redis.miss.off-1'] : undefined,
    };
  };
  return [
    miss(false),
    miss(true),
    {
      id: 'redis.hit.memory-1',
      what: 'hit, 1 known signature: from memory, no Redis',
      instances: [instance('memory-only', false, false)],
      prime: [getSignatureStatuses(known)],
      layer: 'memory',
      ...knownAnswer,
    },
    {
      id: 'redis.hit.redis-1',
      what: 'hit, 1 known signature: Redis (learned by instance 1), no memory',
      instances: [none(true)],
      before: learnedByInstance1(none(true), known),
      layer: 'redis',
      ...knownAnswer,
      vs: ['redis.hit.memory-1'],
    },
  ].map((r) => ({ ...r, connections: 1 }));
}

export function redisCases() {
  const sigs = benchSignatures(1);
  return [
    ...scaleRows('getRoutes', 'getRoutes', getRoutes(), { check: tenRoutes }),
    ...scaleRows('statuses-memory-1', '1 signature from memory', getSignatureStatuses(sigs), {
      prime: [getSignatureStatuses(sigs)],
      layer: 'memory',
      check: expectStatuses(1, { allKnown: true }),
    }),
    ...latencyRows(sigs),
  ];
}
