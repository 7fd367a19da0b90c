import { createLogger } from '@rollup-router/core';
import { pino, type DestinationStream, type LevelWithSilent, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export interface ServerLogger {
  readonly logger: Logger;
  /** Writes out what is still buffered; call before process.exit. */
  flush(): void;
}

/**
 * Where the JSON lines go: `dest` (a file descriptor or a path), written asynchronously
 * in chunks of at most 2 KiB. sonic-boom measures the whole pending chunk on every line
 * (Buffer.byteLength of a growing string), so its default 16 KiB chunks made each call's
 * line cost ~0.7 µs more on the main thread; a small chunk is a few more write(2) calls
 * in the thread pool. Every line is still written.
 */
export function logDestination(dest: number | string): ReturnType<typeof pino.destination> {
  return pino.destination({ dest, sync: false, maxWrite: 2048 });
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
  const destination = logDestination(1);
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
