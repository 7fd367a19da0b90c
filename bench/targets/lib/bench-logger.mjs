// Logging stays ON at info level (one line per call is part of the product); the
// lines go to /dev/null so the terminal is not what is measured, written the way the
// server writes them by default: asynchronously (sync: false), so lines that pile up
// under load leave in one write instead of one syscall each.
import { createLogger } from '@rollup-router/core';
import { pino } from 'pino';

export const LOGGING_NOTE = 'logging on (info, one line per call), async pino destination on /dev/null';

export function benchLogger() {
  return createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: false }) });
}

/** Diagnostic only: the same logger with every line dropped. */
export function silentLogger() {
  return createLogger({ level: 'silent', destination: pino.destination('/dev/null') });
}
