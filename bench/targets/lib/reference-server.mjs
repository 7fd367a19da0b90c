// The reference server as a bench target: @rollup-router/server's loadConfig + startServer,
// configured from a JSON file like an operator would, with per-call logs going to a file
// (stdout here is the runner's control channel). Shared by server.mjs and server-shared.mjs.
import { createLogger } from '@rollup-router/core';
import * as server from '@rollup-router/server';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRoutes } from './fixtures.mjs';
import { absent, report, untilStopped } from './serve.mjs';

/**
 * Writes `{ host, port: 0, routes, ...settings(dir) }` to a temp config file, starts the
 * server from it (or reports the target absent), prints the ready line with `ready` merged
 * in, and shuts down + removes the temp dir on stop. `settings` gets the temp dir for files.
 */
export async function serveReferenceServer(settings, ready) {
  const dir = mkdtempSync(join(tmpdir(), 'rollup-router-bench-'));
  const logFile = join(dir, 'calls.log');
  const configFile = join(dir, 'config.json');
  const config = { host: '127.0.0.1', port: 0, routes: { routes: benchRoutes(10) }, ...settings(dir) };
  writeFileSync(configFile, JSON.stringify(config));

  let running;
  try {
    const { config: loaded } = await server.loadConfig({ file: configFile });
    // What the CLI does with stdout, to a file: stdout here is the runner's control channel.
    const destination = server.logDestination(logFile, loaded.logFlushMs);
    const logger = createLogger({ level: loaded.logLevel, destination });
    running = await server.startServer(loaded, { logger });
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
  report({ ready: true, port: running.port, pid: process.pid, logFile, ...ready });
}
