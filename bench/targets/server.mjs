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
import { createLogger } from '@rollup-router/core';
import { loadConfig, logDestination, startServer } from '@rollup-router/server';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRoutes } from './lib/fixtures.mjs';
import { absent, report, targetArgs, untilStopped } from './lib/serve.mjs';

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

const dir = mkdtempSync(join(tmpdir(), 'rollup-router-bench-'));
const logFile = join(dir, 'calls.log');
const config = {
  host: '127.0.0.1',
  port: 0,
  routes: { routes: benchRoutes(10) },
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
  ...(settings === 'traced' && { tracing: { enabled: true, endpoint: await otlpSink(), samplingRatio: 1 } }),
};
writeFileSync(join(dir, 'config.json'), JSON.stringify(config));

let running;
try {
  // Configured from a file as an operator's would be; the call log goes to a file as the CLI's
  // goes to stdout (stdout here is the runner's control channel).
  const { config: loaded } = await loadConfig({ file: join(dir, 'config.json') });
  const logger = createLogger({
    level: loaded.logLevel,
    destination: logDestination(logFile, loaded.logFlushMs),
  });
  running = await startServer(loaded, { logger });
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  absent(`could not start the reference server: ${err.message}`);
}
// The handlers first: the runner may signal (SIGUSR2: memory) as soon as it reads the ready
// line, and a signal with no handler yet would kill the target.
untilStopped(async () => {
  await running.shutdown(1000);
  rmSync(dir, { recursive: true, force: true });
});
report({
  ready: true,
  port: running.port,
  pid: process.pid,
  name: `reference server, ${settings} settings, statuses ${statuses}${redis ? ', shared Redis' : ''}`,
  notes: [`${settings} settings`, `statuses: ${statuses}${upstream ? ` via ${upstream}` : ''}`],
  logFile: SETTINGS.logLevel === 'silent' ? undefined : logFile,
  metricsPath: SETTINGS.metrics.enabled ? '/metrics' : undefined,
});
