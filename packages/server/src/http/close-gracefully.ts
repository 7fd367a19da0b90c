import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { RequestTracker } from './request-tracker.js';

export interface DrainTimes {
  /** Most time the requests under way get; connections still open after it are closed. */
  readonly graceMs: number;
  /** Least time the port keeps answering, even when nothing is under way. */
  readonly drainDelayMs: number;
}

/**
 * Waits for the requests under way, up to `graceMs`, and at least `drainDelayMs`, still
 * listening: the caller has made new calls fail fast (rpc.drain()) and /ready answer
 * 503, so during the drain a new client (or a load balancer's probe) gets that
 * documented answer instead of a refused connection. Then it stops listening and
 * closes every connection left.
 */
export async function closeGracefully(
  server: Server,
  tracker: RequestTracker,
  { graceMs, drainDelayMs }: DrainTimes,
  log: Logger,
): Promise<void> {
  const deadline = Date.now() + Math.max(graceMs, drainDelayMs);
  server.closeIdleConnections();
  const timer = new AbortController();
  const wait = (ms: number): Promise<'expired' | 'cancelled'> =>
    sleep(ms, 'expired' as const, { signal: timer.signal }).catch(() => 'cancelled' as const);
  const delay = wait(drainDelayMs);
  if ((await Promise.race([tracker.idle().then(() => 'idle' as const), wait(graceMs)])) === 'expired') {
    log.warn(
      { inflight: tracker.inflight },
      'shutdown grace period over; closing connections with calls under way',
    );
  }
  await delay;
  timer.abort();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their last answer is written; close them until none is left.
  while (!(await Promise.race([closed.then(() => true), sleep(25, false)]))) {
    if (Date.now() >= deadline) server.closeAllConnections();
    else server.closeIdleConnections();
  }
}
