import type { Logger } from 'pino';
import type { RunningServer } from './server.js';

/**
 * SIGTERM/SIGINT: graceful shutdown, then exit 0 (1 if stopping failed); a second one
 * exits at once with 1, and so does a shutdown still running after `deadlineMs` (a
 * backstop: the shutdown bounds its own steps). SIGHUP: reload the routes file (a bad
 * file keeps the old list). Returns the graceful stop, for a stop asked otherwise (a
 * worker's primary): once begun, asking again changes nothing.
 */
export function handleSignals(
  server: RunningServer,
  log: Logger,
  exit: (code: number) => never,
  deadlineMs: number,
): () => void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without waiting');
      exit(1);
    }
    stopping = true;
    log.info({ signal }, 'signal received');
    setTimeout(() => {
      log.error({ deadlineMs }, 'shutdown still running past its deadline: exiting without waiting');
      exit(1);
    }, deadlineMs);
    server.shutdown().then(
      () => exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const stopOnce = (): void => {
    if (!stopping) stop('SIGTERM');
  };
  process.on('SIGHUP', () => {
    log.info({ signal: 'SIGHUP' }, 'reloading routes');
    server.reloadRoutes().then(
      (errors) => {
        if (errors.length === 0)
          log.info({ nodes: server.plugins.routes.registry.nodes().length }, 'routes reloaded');
      },
      (err: unknown) => log.error({ err }, 'routes reload failed'),
    );
  });
  return stopOnce;
}
