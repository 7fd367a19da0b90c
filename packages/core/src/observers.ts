import type { Logger } from 'pino';

/**
 * Calls an observer that belongs to someone else's code (metrics, hooks, listeners).
 * An observer only watches: its failure is logged and swallowed, so it can never turn
 * an answer already computed into an error, nor stop the observers after it.
 */
export function emitGuarded<T>(
  observers: Iterable<(value: T) => void>,
  value: T,
  log: Logger | undefined,
  what: string,
): void {
  for (const observe of observers) {
    try {
      observe(value);
    } catch (err) {
      log?.error({ err, observer: what }, 'an observer threw; ignored');
    }
  }
}
