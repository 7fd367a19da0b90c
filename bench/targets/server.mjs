// Ours, the reference server itself: @rollup-router/server's loadConfig + startServer,
// the listener `rollup-router` runs (security headers, request tracker, /metrics,
// /ready), configured from a JSON file like an operator would.
//   --settings production - per-call info logs to a file, metrics on, default headers;
//   --settings lean       - logs silent, metrics off (headers stay: they are not optional).
//   --statuses memory     - memory cache + SQLite store + upstream (the defaults), primed by the runner;
//              sqlite     - no memory cache, store only;
//              upstream   - no memory cache, no store: every call goes upstream;
//              soak       - a 1000-entry cache, so later growth is a leak.
// The log file's size and /metrics are what the runner reads to prove the settings were on.
import { createLogger } from '@rollup-router/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRoutes } from './lib/fixtures.mjs';
import { absent, report, targetArgs, untilStopped } from './lib/serve.mjs';

const { settings = 'production', statuses = 'memory', upstream } = targetArgs();
const SETTINGS = {
  production: { logLevel: 'info', metrics: { enabled: true } },
  lean: { logLevel: 'silent', metrics: { enabled: false } },
}[settings];
const CHAIN = {
  memory: { memory: {}, store: true },
  sqlite: { memory: { maxEntries: 0 }, store: true },
  upstream: { memory: { maxEntries: 0 }, store: false },
  soak: { memory: { maxEntries: 1000 }, store: true },
}[statuses];
if (!SETTINGS || !CHAIN) absent(`unknown --settings ${settings} or --statuses ${statuses}`);

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
    ...SETTINGS,
    routes: { routes: benchRoutes(10) },
    statuses: {
      memory: CHAIN.memory,
      store: CHAIN.store && { path: join(dir, 'statuses.sqlite') },
      upstreams: upstream ? [{ url: upstream }] : [],
    },
  }),
);

let running;
try {
  const { config } = await server.loadConfig({ file: configFile });
  // What the CLI does with stdout, to a file: stdout here is the runner's control channel.
  const destination = server.logDestination(logFile);
  const logger = createLogger({ level: config.logLevel, destination });
  running = await server.startServer(config, { logger });
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  absent(`could not start the reference server: ${err.message}`);
}

report({
  ready: true,
  name: `reference server, ${settings} settings, statuses ${statuses}`,
  port: running.port,
  pid: process.pid,
  notes: [`${settings} settings`, `statuses: ${statuses}${upstream ? ` via ${upstream}` : ''}`],
  logFile: SETTINGS.logLevel === 'silent' ? undefined : logFile,
  metricsPath: SETTINGS.metrics.enabled ? '/metrics' : undefined,
});
untilStopped(async () => {
  await running.shutdown(1000);
  rmSync(dir, { recursive: true, force: true });
});
