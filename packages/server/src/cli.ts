#!/usr/bin/env node
import cluster from 'node:cluster';
import { RouteListError } from '@rollup-router/routes';
import { ImportLineError } from '@rollup-router/signature-statuses';
import { helpText, parseCommand, USAGE, UsageError, type Command } from './cli/args.js';
import { checkConfig } from './cli/check-config.js';
import { importStatusesCommand } from './cli/import-statuses.js';
import { ConfigError } from './config/config-error.js';
import { runPrimary } from './cluster/primary.js';
import { workerCount } from './cluster/usable-cpus.js';
import {
  configFromPrimary,
  onStopFromPrimary,
  primaryLinks,
  tellStarted,
  workerId,
} from './cluster/worker.js';
import { loadConfig, type LoadedConfig } from './config/load-config.js';
import { createServerLogger, type ServerLogger } from './logger.js';
import { version } from './paths.js';
import { startServerLinked, type PrimaryLinks } from './server.js';
import { shutdownBoundMs } from './shutdown.js';
import { handleSignals } from './signals.js';

/** Exit codes: 0 done, 1 failure while running, 2 invalid config, arguments or input. */
const INVALID = 2;

const fail = (code: number, message: string): never => {
  process.stderr.write(`rollup-router: ${message}\n`);
  process.exit(code);
};

async function serve(command: Extract<Command, { kind: 'serve' }>): Promise<void> {
  if (cluster.isWorker) return serveOne(await configFromPrimary(), primaryLinks);
  const loaded = await loadConfig({
    file: command.config ?? (process.env.ROLLUP_ROUTER_CONFIG || undefined),
    env: process.env,
    flags: {
      host: command.host,
      port: command.port,
      logLevel: command.logLevel,
      workers: command.workers,
      plugins: command.plugins,
    },
  });
  const workers = workerCount(loaded.config.workers);
  if (workers === 1) return serveOne(loaded, undefined);
  const { logger, exit } = processLogger(loaded);
  logger.info(
    { version, config: loaded.source, overrides: loaded.overrides, workers },
    'starting rollup-router',
  );
  runPrimary({ loaded, count: workers, log: logger, exit, stopBoundMs: stopBoundOf(loaded) });
}

/** Serves in this process: on its own (`primary` undefined) or as a worker of `workers`. */
async function serveOne(
  { config, source, overrides }: LoadedConfig,
  primary: PrimaryLinks | undefined,
): Promise<void> {
  const { logger, flush, exit } = processLogger({ config, source, overrides });
  let stop = (): void => exit(0);
  if (primary) onStopFromPrimary(() => stop());
  if (!primary) logger.info({ version, config: source, overrides }, 'starting rollup-router');
  let running;
  try {
    running = await startServerLinked(config, { logger }, primary);
  } catch (err) {
    // A bad routes file or plugin module is an invalid configuration, told like the others.
    const invalid = invalidInputMessage(err);
    if (invalid !== undefined) {
      flush();
      return fail(INVALID, invalid);
    }
    logger.fatal({ err }, 'could not start');
    return exit(1);
  }
  stop = handleSignals(running, logger, exit, stopBoundOf({ config, source, overrides }));
  if (primary) tellStarted();
}

/** This process's logger (a worker's lines name it), and exit, which writes out the lines still buffered. */
function processLogger({ config }: LoadedConfig): ServerLogger & { exit: (code: number) => never } {
  const { logger: root, flush } = createServerLogger(config.logLevel, { flushMs: config.logFlushMs });
  const worker = workerId();
  const logger = worker === undefined ? root : root.child({ worker });
  const exit = (code: number): never => {
    flush();
    process.exit(code);
  };
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception; exiting');
    exit(1);
  });
  return { logger, flush, exit };
}

const stopBoundOf = ({ config }: LoadedConfig): number =>
  shutdownBoundMs(config.shutdown.graceMs, config.shutdown.drainDelayMs);

/** The message of an error that means bad configuration or input (exit 2), else undefined. */
function invalidInputMessage(err: unknown): string | undefined {
  if (err instanceof ConfigError) return err.message;
  if (err instanceof RouteListError) return `invalid routes: ${err.message}`;
  if (err instanceof ImportLineError) return `import rejected, nothing was imported: ${err.message}`;
  if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return (err as Error).message;
  return undefined;
}

async function main(argv: readonly string[]): Promise<void> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (err) {
    if (err instanceof UsageError) fail(INVALID, `${err.message}\n${USAGE}`);
    throw err;
  }
  switch (command.kind) {
    case 'help':
      process.stdout.write(`${helpText()}\n`);
      return;
    case 'version':
      process.stdout.write(`${version}\n`);
      return;
    case 'check-config':
      process.stdout.write(await checkConfig(command.file, process.env));
      return;
    case 'import-statuses': {
      const report = await importStatusesCommand(command.file, command.config, process.env);
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    case 'serve':
      return serve(command);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const invalid = invalidInputMessage(err);
  if (invalid !== undefined) fail(INVALID, invalid);
  fail(1, (err as Error)?.message ?? String(err));
});
