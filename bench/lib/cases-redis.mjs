// The rows of issue 11's bench: (a) one instance vs two instances sharing a Redis on
// the same machine, the load generator spreading its connections over both; (b) what the
// Redis layer adds to one call's latency, on a miss (Redis asked, the upstream answers)
// and on a hit (an instance answering what another one learned). Each row says which
// instances serve it: `instances` are measured, `learner` is an instance that learns the
// primed signature first and stops before the rounds. Measured by group-redis.mjs.
import { benchSignatures } from '../targets/lib/fixtures.mjs';
import {
  expectStatuses,
  freshSignatureBodies,
  getRoutes,
  getSignatureStatuses,
  tenRoutes,
} from './requests.mjs';

const SECURITY_HEADERS = ['x-content-type-options', 'content-security-policy', 'x-request-id'];
const ALONE = { statuses: 'memory', redis: false, rateLimit: true };
const SHARED = { statuses: 'memory', redis: true, rateLimit: true };

/** The same call twice: autocannon takes a list of URLs only with a list of requests. */
const twice = (body) => [
  { path: '/', body },
  { path: '/', body },
];

/** (a): `what` served by one instance alone, one with Redis, and two sharing Redis. */
function scaleRows(name, what, body, fields) {
  const id = (k) => `scale.${k}.${name}`;
  const row = (k, how, instances, vs) => ({
    id: id(k),
    what: `${what}, ${how}, rate limit`,
    instances,
    requests: twice(body),
    headers: SECURITY_HEADERS,
    same: true,
    vs,
    ...fields,
  });
  return [
    row('one', '1 instance, no Redis', [ALONE]),
    row('one-redis', '1 instance + Redis', [SHARED], [id('one')]),
    row('two-redis', '2 instances + Redis', [SHARED, SHARED], [id('one'), id('one-redis')]),
  ];
}

/**
 * Looks like an endless list of request bodies; every read is a signature never asked
 * before, so a miss stays a miss in every round (load.mjs starts each run at index 0).
 */
function endlessFreshBodies() {
  let chunk = [];
  let i = 0;
  const next = () => {
    if (i === chunk.length) [chunk, i] = [freshSignatureBodies(10_000, 1), 0];
    return chunk[i++];
  };
  return new Proxy([], {
    get: (list, key) =>
      key === 'length'
        ? Number.MAX_SAFE_INTEGER
        : /^\d+$/.test(String(key))
          ? next()
          : Reflect.get(list, key),
  });
}

/** (b): one connection, so the figures are a call's latency, not queueing. */
function latencyRows(known) {
  const none = { statuses: 'none', rateLimit: false };
  const primedKnown = {
    requests: [{ path: '/', body: getSignatureStatuses(known) }],
    check: expectStatuses(1, { allKnown: true }),
    same: true,
  };
  const miss = (redis) => ({
    id: `redis.miss.${redis ? 'on' : 'off'}-1`,
    what: `miss, 1 new signature: ${redis ? 'Redis, then upstream' : 'upstream, no Redis'}; no memory/store`,
    instances: [{ ...none, redis }],
    layer: 'upstream',
    fresh: true,
    requests: [{ path: '/', bodies: endlessFreshBodies() }],
    check: expectStatuses(1, { allKnown: true }),
    vs: redis ? ['redis.miss.off-1'] : undefined,
  });
  const rows = [
    miss(false),
    miss(true),
    {
      id: 'redis.hit.memory-1',
      what: 'hit, 1 known signature: from memory, no Redis',
      instances: [{ statuses: 'memory', redis: false, rateLimit: false }],
      prime: [getSignatureStatuses(known)],
      layer: 'memory',
      ...primedKnown,
    },
    {
      id: 'redis.hit.redis-1',
      what: 'hit, 1 known signature: Redis (learned by instance 1), no memory',
      instances: [{ ...none, redis: true }],
      learner: { ...none, redis: true },
      learn: known,
      layer: 'redis',
      ...primedKnown,
      vs: ['redis.hit.memory-1'],
    },
  ];
  return rows.map((r) => ({ ...r, connections: 1 }));
}

/** Every row, by id. */
export function redisCases() {
  const sigs = benchSignatures(1);
  const rows = [
    ...scaleRows('getRoutes', 'getRoutes', getRoutes(), { check: tenRoutes }),
    ...scaleRows('statuses-memory-1', '1 signature from memory', getSignatureStatuses(sigs), {
      prime: [getSignatureStatuses(sigs)],
      layer: 'memory',
      check: expectStatuses(1, { allKnown: true }),
    }),
    ...latencyRows(sigs),
  ];
  return new Map(rows.map((r) => [r.id, r]));
}

/** The groups, full run only: with them the quick run would no longer fit its 5 minutes. */
export const REDIS_GROUPS = [
  {
    name: 'one vs two instances + Redis, getRoutes',
    members: ['scale.one.getRoutes', 'scale.one-redis.getRoutes', 'scale.two-redis.getRoutes'],
  },
  {
    name: 'one vs two instances + Redis, statuses, 1 signature',
    members: [
      'scale.one.statuses-memory-1',
      'scale.one-redis.statuses-memory-1',
      'scale.two-redis.statuses-memory-1',
    ],
  },
  {
    name: 'Redis layer latency, 1 connection',
    members: ['redis.miss.off-1', 'redis.miss.on-1', 'redis.hit.memory-1', 'redis.hit.redis-1'],
  },
];
