// What the primary of `workers` and its workers tell each other (beside the metrics and the
// rate budgets, which have their own channels).
import type { LoadedConfig } from '../config/load-config.js';

/** Worker to primary, once it listens for the answer (a message sent before would be lost). */
export interface AskConfigMessage {
  readonly type: 'rollup-router:ask-config';
}

/** Primary to worker: the configuration every worker runs, read and validated once. */
export interface ConfigMessage {
  readonly type: 'rollup-router:config';
  readonly loaded: LoadedConfig;
}

/** Worker to primary: it listens and serves. */
export interface StartedMessage {
  readonly type: 'rollup-router:started';
}

/** Primary to worker: stop gracefully (as on SIGTERM; a signal sent to the worker itself still counts). */
export interface StopMessage {
  readonly type: 'rollup-router:stop';
}

export type WorkerMessage = AskConfigMessage | ConfigMessage | StartedMessage | StopMessage;

export const isMessage = <T extends WorkerMessage['type']>(
  message: unknown,
  type: T,
): message is Extract<WorkerMessage, { type: T }> => (message as WorkerMessage | null)?.type === type;
