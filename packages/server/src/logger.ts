import { createLogger } from '@rollup-router/core';
import { pino, type DestinationStream, type LevelWithSilent, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export interface ServerLogger {
  readonly logger: Logger;
  /** Writes out what is still buffered; call before process.exit. */
  flush(): void;
}

/** Bytes a batching destination collects before it writes (sonic-boom's minLength). */
const BATCH_BYTES = 4096;

/**
 * Where the JSON lines go: `dest` (a file descriptor or a path).
 *
 * Lines are written synchronously, in batches when `flushMs` > 0 (the config's
 * `logFlushMs`): one write(2) per 4 KiB, and a timer writes out whatever is pending every
 * `flushMs`. The earlier asynchronous destination handed one 2 KiB chunk per event-loop
 * turn to the thread pool; at 20k calls/s it fell behind by ~13k lines a second, held in
 * memory without bound. Written synchronously the backlog is at most one batch, and a log
 * reader slower than the calls slows the calls instead of growing the heap (as Node's own
 * stdout does for files and pipes). A batch is written out on process exit.
 *
 * Chunks stay small because sonic-boom measures the whole pending chunk on every line
 * (Buffer.byteLength of a growing string): its default 16 KiB made each line ~0.7 µs dearer.
 */
export function logDestination(dest: number | string, flushMs: number): ReturnType<typeof pino.destination> {
  if (flushMs === 0) return pino.destination({ dest, sync: true, maxWrite: 2048 });
  const destination = pino.destination({
    dest,
    sync: true,
    minLength: BATCH_BYTES,
    maxWrite: 2 * BATCH_BYTES,
    periodicFlush: flushMs,
  });
  // pino writes out asynchronous destinations on exit, not synchronous ones: this one holds up to a batch.
  const writeOut = (): void => flushQuietly(destination);
  process.once('exit', writeOut);
  destination.once('close', () => process.off('exit', writeOut));
  return destination;
}

/** flushSync throws before the file is open (nothing written yet) and after it is closed. */
function flushQuietly(destination: ReturnType<typeof pino.destination>): void {
  try {
    destination.flushSync();
  } catch {
    // Nothing that could still be written.
  }
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
