/** First retry after a failure, then doubling up to the cap (a little jitter spreads fleets). */
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 30_000;

/** How long to wait before attempt `failures + 1`, `failures` >= 1 being the failures in a row. */
export function retryDelayMs(failures: number): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
