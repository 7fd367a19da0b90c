// A worker's side of `workers`: its configuration, budgets and metrics come through the primary.
import cluster from 'node:cluster';
import type { LoadedConfig } from '../config/load-config.js';
import type { PrimaryLinks } from '../server.js';
import { scrapeThroughPrimary } from './cluster-metrics.js';
import { budgetsInPrimary } from './cluster-rate-limit.js';
import { isMessage, type AskConfigMessage, type StartedMessage } from './worker-messages.js';

/** This worker's number (1, 2, ...; a replacement gets the next), for its log lines; undefined outside a cluster. */
export const workerId = (): number | undefined => cluster.worker?.id;

/** The configuration the primary read; a worker never reads the file itself, so every worker runs the same. */
export function configFromPrimary(): Promise<LoadedConfig> {
  return new Promise((resolve) => {
    const receive = (message: unknown): void => {
      if (!isMessage(message, 'rollup-router:config')) return;
      process.off('message', receive);
      resolve(message.loaded);
    };
    process.on('message', receive);
    process.send!({ type: 'rollup-router:ask-config' } satisfies AskConfigMessage);
  });
}

export const primaryLinks: PrimaryLinks = { budgets: budgetsInPrimary, shareMetrics: scrapeThroughPrimary };

/** Tells the primary this worker serves; a worker that exits before saying so failed to start. */
export function tellStarted(): void {
  process.send!({ type: 'rollup-router:started' } satisfies StartedMessage);
}

/** Runs `stop` when the primary says so. */
export function onStopFromPrimary(stop: () => void): void {
  process.on('message', (message: unknown) => {
    if (isMessage(message, 'rollup-router:stop')) stop();
  });
}
