// The reference server as one of several instances (issue 11): server.mjs's production
// settings (info call logs to a file, metrics on, default headers), plus
//   --redis URL        the shared Redis (rate budgets, finalized statuses, affinity); none: nothing shared;
//   --rate-limit on    a per-client budget far above the load, so every call pays for the
//                      limiter (a Lua increment in Redis, or in memory without --redis) and none is refused;
//   --statuses memory  memory cache, no store: what an instance answers from its own memory;
//              none    no memory cache, no store: Redis (when given), then the upstream, every call.
import { createLogger } from '@rollup-router/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { benchRoutes } from './lib/fixtures.mjs';
import { absent, report, targetArgs, untilStopped } from './lib/serve.mjs';

const { redis, statuses = 'memory', upstream, 'rate-limit': rateLimit = 'off' } = targetArgs();
const MEMORY = { memory: {}, none: { maxEntries: 0 } }[statuses];
if (!MEMORY) absent(`unknown --statuses ${statuses}`);

let server;
try {
  server = await import('@rollup-router/server');
} catch (err) {
  absent(`@rollup-router/server not usable (${err.code ?? err.message})`);
}

const dir = mkdtempSync(join(tmpdir(), 'rollup-router-bench-'));
const logFile = join(dir, 'calls.log');
const configFile = join(dir, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'info',
    metrics: { enabled: true },
    routes: { routes: benchRoutes(10) },
    statuses: { memory: MEMORY, store: false, upstreams: upstream ? [{ url: upstream }] : [] },
    ...(redis ? { redis: { url: redis } } : {}),
    ...(rateLimit === 'on' ? { rateLimit: { points: 1_000_000_000, durationSeconds: 1 } } : {}),
  }),
);

let running;
try {
  const { config } = await server.loadConfig({ file: configFile });
  const destination = pino.destination({ dest: logFile, sync: false });
  const logger = createLogger({ level: config.logLevel, destination });
  running = await server.startServer(config, { logger });
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  absent(`could not start the reference server: ${err.message}`);
}

report({
  ready: true,
  name: `reference server, production settings${redis ? ', shared Redis' : ''}`,
  port: running.port,
  pid: process.pid,
  notes: [`statuses: ${statuses}, no store`],
  logFile,
  metricsPath: '/metrics',
});
untilStopped(async () => {
  await running.shutdown(1000);
  rmSync(dir, { recursive: true, force: true });
});
