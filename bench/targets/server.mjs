// Ours, the reference server itself: @rollup-router/server's loadConfig + startServer,
// the listener `rollup-router` runs (security headers, request tracker, /metrics,
// /ready), configured from a JSON file like an operator would.
//   --settings production - per-call info logs to a file, metrics on, default headers;
//   --settings lean       - logs silent, metrics off (headers stay: they are not optional);
//   --settings sampled    - production with callLog.sampleRate 0.01: 1 successful call in 100
//                           gets its line, every failure does (an option, not the default).
//   --settings traced     - production with OpenTelemetry traces on, every call sampled, exported
//                           to an OTLP sink in a child process (otlp-sink.mjs; its CPU is not ours).
//   --statuses memory     - memory cache + SQLite store + upstream (the defaults), primed by the runner;
//              memory-only - memory cache, no store: what an instance answers from its own memory;
//              sqlite     - no memory cache, store only;
//              upstream   - no memory cache, no store: every call goes upstream (Redis first, if any);
//              soak       - a 1000-entry cache, so later growth is a leak.
//   --redis URL           - a Redis shared by several instances (rate budgets, finalized statuses);
//   --rate-limit on       - a per-client budget far above the load, so every call pays for the
//                           limiter (a Lua increment in Redis, or in memory) and none is refused;
//   --upstream-ws URL     - the upstream's websocket, where signatureSubscribe is relayed (else port + 1;
//                           off: polled, wsUrl false);
//   --delegation URL      - the delegation router, with this base chain (validator A).
//   --delegation-ws URL   - that base chain's websocket (else port + 1), where accountSubscribe is relayed.
// The log file's size and /metrics are what the runner reads to prove the settings were on.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { serveReferenceServer } from './lib/reference-server.mjs';
import { absent, targetArgs } from './lib/serve.mjs';

const args = targetArgs();
const { settings = 'production', statuses = 'memory', upstream, delegation, redis } = args;
const wsUrl = args['upstream-ws'];
const SETTINGS = {
  production: { logLevel: 'info', metrics: { enabled: true } },
  lean: { logLevel: 'silent', metrics: { enabled: false } },
  sampled: { logLevel: 'info', metrics: { enabled: true }, callLog: { sampleRate: 0.01 } },
  traced: { logLevel: 'info', metrics: { enabled: true } },
}[settings];
const CHAIN = {
  memory: { memory: {}, store: true },
  'memory-only': { memory: {}, store: false },
  sqlite: { memory: { maxEntries: 0 }, store: true },
  upstream: { memory: { maxEntries: 0 }, store: false },
  soak: { memory: { maxEntries: 1000 }, store: true },
}[statuses];
if (!SETTINGS || !CHAIN) absent(`unknown --settings ${settings} or --statuses ${statuses}`);

/** The traced rows' collector: a child process, so exporting costs us only our side of it. */
async function otlpSink() {
  const sink = fork(new URL('./otlp-sink.mjs', import.meta.url), { stdio: 'ignore' });
  const [{ port }] = await once(sink, 'message');
  return `http://127.0.0.1:${port}/v1/traces`;
}
const tracing =
  settings === 'traced' ? { enabled: true, endpoint: await otlpSink(), samplingRatio: 1 } : undefined;

await serveReferenceServer(
  (dir) => ({
    ...SETTINGS,
    statuses: {
      memory: CHAIN.memory,
      store: CHAIN.store && { path: join(dir, 'statuses.sqlite') },
      upstreams: upstream ? [{ url: upstream, wsUrl: wsUrl === 'off' ? false : wsUrl }] : [],
    },
    ...(delegation && {
      delegation: {
        baseChain: { url: delegation, ...(args['delegation-ws'] && { wsUrl: args['delegation-ws'] }) },
      },
    }),
    ...(redis && { redis: { url: redis } }),
    ...(args['rate-limit'] === 'on' && { rateLimit: { points: 1_000_000_000, durationSeconds: 1 } }),
    ...(tracing && { tracing }),
  }),
  {
    name: `reference server, ${settings} settings, statuses ${statuses}${redis ? ', shared Redis' : ''}`,
    notes: [`${settings} settings`, `statuses: ${statuses}${upstream ? ` via ${upstream}` : ''}`],
    ...(SETTINGS.logLevel === 'silent' ? { logFile: undefined } : {}),
    metricsPath: SETTINGS.metrics.enabled ? '/metrics' : undefined,
  },
);
