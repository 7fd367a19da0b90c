// The reference server as one of several instances (issue 11): server.mjs's production
// settings (info call logs to a file, metrics on, default headers), plus
//   --redis URL        the shared Redis (rate budgets, finalized statuses, affinity); none: nothing shared;
//   --rate-limit on    a per-client budget far above the load, so every call pays for the
//                      limiter (a Lua increment in Redis, or in memory without --redis) and none is refused;
//   --statuses memory  memory cache, no store: what an instance answers from its own memory;
//              none    no memory cache, no store: Redis (when given), then the upstream, every call.
import { serveReferenceServer } from './lib/reference-server.mjs';
import { absent, targetArgs } from './lib/serve.mjs';

const { redis, statuses = 'memory', upstream, 'rate-limit': rateLimit = 'off' } = targetArgs();
const MEMORY = { memory: {}, none: { maxEntries: 0 } }[statuses];
if (!MEMORY) absent(`unknown --statuses ${statuses}`);

await serveReferenceServer(
  () => ({
    logLevel: 'info',
    metrics: { enabled: true },
    statuses: { memory: MEMORY, store: false, upstreams: upstream ? [{ url: upstream }] : [] },
    ...(redis ? { redis: { url: redis } } : {}),
    ...(rateLimit === 'on' ? { rateLimit: { points: 1_000_000_000, durationSeconds: 1 } } : {}),
  }),
  {
    name: `reference server, production settings${redis ? ', shared Redis' : ''}`,
    notes: [`statuses: ${statuses}, no store`],
    metricsPath: '/metrics',
  },
);
