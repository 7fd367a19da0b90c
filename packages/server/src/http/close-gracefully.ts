import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { RequestTracker } from './request-tracker.js';

/**
 * Waits for the requests under way, up to `graceMs`, still listening: the caller has made
 * new calls fail fast (rpc.drain()) and /ready answer 503, so during the drain a new client
 * (or a load balancer's probe) gets that documented answer, which a balancer may send
 * elsewhere since nothing of it was read, instead of a refused connection. Then it stops
 * listening and closes every connection left.
 */
export async function closeGracefully(
  server: Server,
  tracker: RequestTracker,
  graceMs: number,
  log: Logger,
): Promise<void> {
  const deadline = Date.now() + graceMs;
  server.closeIdleConnections();
  const timer = new AbortController();
  const expired = sleep(graceMs, 'expired' as const, { signal: timer.signal }).catch(
    () => 'cancelled' as const,
  );
  if ((await Promise.race([tracker.idle().then(() => 'idle' as const), expired])) === 'expired') {
    log.warn(
      { inflight: tracker.inflight },
      'shutdown grace period over; closing connections with calls under way',
    );
  }
  timer.abort();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their last answer is written; close them until none is left.
  while (!(await Promise.race([closed.then(() => true), sleep(25, false)]))) {
    if (Date.now() >= deadline) server.closeAllConnections();
    else server.closeIdleConnections();
  }
}
