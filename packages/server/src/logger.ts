import { createLogger, flushQuietly, logDestination } from '@rollup-router/core';
import type { DestinationStream, LevelWithSilent, Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export interface ServerLogger {
  readonly logger: Logger;
  /** Writes out what is still buffered; call before process.exit. */
  flush(): void;
}

export interface ServerLoggerOptions {
  /** Batch lines and write them out at least this often, in ms (config `logFlushMs`); 0 writes each line at once. */
  readonly flushMs: number;
  /** Pretty, line by line, for a person at a terminal. Default: when stdout is a TTY. */
  readonly pretty?: boolean;
}

/**
 * JSON lines on stdout for log collectors; the same lines made readable by pino-pretty
 * when a person watches a terminal. Secrets are redacted by the core's logger settings.
 */
export function createServerLogger(level: LevelWithSilent, options: ServerLoggerOptions): ServerLogger {
  if (options.pretty ?? process.stdout.isTTY === true) {
    const stream = pinoPretty({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
    });
    return {
      logger: createLogger({ level, destination: stream as DestinationStream }),
      flush: () => undefined,
    };
  }
  const destination = logDestination(1, options.flushMs);
  return {
    logger: createLogger({ level, destination }),
    flush: () => flushQuietly(destination),
  };
}
