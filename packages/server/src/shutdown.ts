import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rpc, WebSocketTransport } from '@rollup-router/core';
import type { StatusStore } from '@rollup-router/signature-statuses';
import type { Logger } from 'pino';
import { closeGracefully } from './http/close-gracefully.js';
import type { RequestTracker } from './http/request-tracker.js';
import type { UpstreamWatch } from './readiness/upstream-watch.js';
import type { SharedRedis } from './redis/shared-redis.js';

/**
 * Past the grace, what closing the connections left may take: a
 * WebSocket peer gets 2 s to complete its closing handshake before it is cut off.
 */
const CLOSE_MARGIN_MS = 3_000;
/** Most time each later step (the other listeners, the plugins, Redis) gets before the sequence goes on without it. */
const STEP_MS = 2_000;
/** Steps after the drain, each bounded by STEP_MS. */
const LATER_STEPS = 3;

/**
 * When a shutdown begun with these times has ended, whatever clients and plugins do: the
 * drain delay, the grace, then the bounded steps. A process that is still running past it
 * gives up (signals.ts).
 */
export function shutdownBoundMs(graceMs: number, drainDelayMs: number): number {
  return drainDelayMs + graceMs + CLOSE_MARGIN_MS + LATER_STEPS * STEP_MS + 1_000;
}

export interface StopParts {
  readonly log: Logger;
  readonly drainDelayMs: number;
  readonly rpc: Rpc;
  readonly tracker: RequestTracker;
  readonly upstreams: UpstreamWatch;
  readonly state: { draining: boolean };
  readonly server: Server;
  readonly metricsServer: Server | undefined;
  readonly socketServer: Server | undefined;
  readonly sockets: WebSocketTransport;
  readonly redis: SharedRedis | undefined;
  /** The open store, read when the shutdown begins (the plugin lets go of it when it stops). */
  readonly store: () => StatusStore | undefined;
}

/**
 * The graceful stop of RunningServer.shutdown. First the instance leaves its load balancer:
 * for `drainDelayMs` /ready answers 503 while calls are still answered, so none is refused
 * while the balancer still sends them here. Then it drains (new calls get 503, the calls
 * under way get up to the grace, sockets close with 1001), closes the listeners, stops the
 * plugins (which closes the store) and closes Redis. Every step is bounded and runs even
 * when one before it failed or hung, so the store and Redis are always closed; a step that
 * failed or hung makes the promise reject once all have run.
 */
export async function shutDown(parts: StopParts, graceMs: number): Promise<void> {
  const { log, drainDelayMs, rpc, tracker, upstreams, state, server, metricsServer, socketServer, sockets } =
    parts;
  const store = parts.store();
  const steps = new BoundedSteps(log);
  state.draining = true;
  if (drainDelayMs > 0) {
    tracker.closeConnectionsAfterResponses();
    log.info(
      { drainDelayMs },
      'shutting down: /ready answers 503; calls are still answered until the load balancer has taken this instance out',
    );
    await sleep(drainDelayMs);
  }
  rpc.drain();
  log.info(
    { inflight: tracker.inflight, graceMs },
    'shutting down: new calls get 503; waiting for calls under way',
  );
  // Sockets close with 1001 once their calls under way are answered, while HTTP drains.
  await steps.run('closing the connections', graceMs + CLOSE_MARGIN_MS, () =>
    Promise.all([closeGracefully(server, tracker, graceMs, log), sockets.close(graceMs)]),
  );
  await steps.run('closing the other listeners', STEP_MS, () =>
    Promise.all([socketServer, metricsServer].map((s) => s && closeNow(s))),
  );
  upstreams.stop();
  await steps.run('stopping the plugins', STEP_MS, () => rpc.stop());
  if (store !== undefined) closeStore(store, log);
  if (parts.redis) await steps.run('closing Redis', STEP_MS, () => parts.redis!.close());
  steps.finish();
  log.info('stopped');
}

/** The statuses plugin closes it when it stops; closed here when another plugin's stop hung or failed first. */
function closeStore(store: StatusStore, log: Logger): void {
  try {
    store.close();
    log.info('store closed');
  } catch (err) {
    log.error({ err }, 'could not close the store');
  }
}

/** Runs the steps of the shutdown one after another, none for longer than it is given. */
class BoundedSteps {
  private readonly unfinished: string[] = [];

  constructor(private readonly log: Logger) {}

  /** Runs `step` for at most `ms`; one that fails or overruns is logged and left behind, and the next runs. */
  async run(name: string, ms: number, step: () => Promise<unknown>): Promise<void> {
    const timer = new AbortController();
    const overrun = sleep(ms, 'overran' as const, { signal: timer.signal }).catch(() => 'done' as const);
    try {
      if ((await Promise.race([step().then(() => 'done' as const), overrun])) === 'overran') {
        this.log.error({ step: name, ms }, `shutdown: ${name} did not finish within ${ms} ms; going on`);
        this.unfinished.push(name);
      }
    } catch (err) {
      this.log.error({ err, step: name }, `shutdown: ${name} failed; going on`);
      this.unfinished.push(name);
    } finally {
      timer.abort();
    }
  }

  /** Throws when a step failed or hung: the service stopped, but not cleanly. */
  finish(): void {
    if (this.unfinished.length > 0)
      throw new Error(`shutdown incomplete: ${this.unfinished.join(', ')} did not finish`);
  }
}

/** The metrics and WebSocket listeners have nothing to drain: a scrape cut short is simply retried. */
function closeNow(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
