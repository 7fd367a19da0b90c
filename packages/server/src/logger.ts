import { createLogger } from '@rollup-router/core';
import { pino, type DestinationStream, type LevelWithSilent, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export interface ServerLogger {
  readonly logger: Logger;
  /** Writes out what is still buffered; call before process.exit. */
  flush(): void;
}

/**
 * JSON lines on stdout for log collectors; the same lines made readable by pino-pretty
 * when a person watches a terminal. Secrets are redacted by the core's logger settings.
 */
export function createServerLogger(
  level: LevelWithSilent,
  pretty: boolean = process.stdout.isTTY === true,
): ServerLogger {
  if (pretty) {
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
  const destination = pino.destination({ dest: 1, sync: false });
  return {
    logger: createLogger({ level, destination }),
    flush: () => {
      try {
        destination.flushSync();
      } catch {
        // Nothing written yet (the stream is not ready): nothing to flush.
      }
    },
  };
}
