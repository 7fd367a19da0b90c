import {
  emitGuarded,
  type ForwarderOptions,
  type PluginContext,
  type UpstreamCallObserver,
  type UpstreamCallOutcome,
} from '@rollup-router/core';
import type { UpstreamLabels } from './upstream-labels.js';
import type { Upstream } from './upstream.js';

type CallObserver = NonNullable<ForwarderOptions<Upstream>['observe']>;

interface UpstreamCallEvent {
  readonly upstream: string;
  readonly outcome: UpstreamCallOutcome;
  readonly ms: number;
}

/**
 * The caller's observer that reports to the embedder's onUpstreamCall: each upstream by its
 * label, each outcome in the statuses plugin's words. Reported on the next turn of the event
 * loop, so the call's answer is not held up by metrics (as the core does with its call
 * observers). The hook is the embedder's code, so it is guarded: one that throws is logged
 * and ignored, never failing the call.
 */
export function reportUpstreamCalls(
  onUpstreamCall: UpstreamCallObserver,
  labels: UpstreamLabels,
  log: () => PluginContext['log'] | undefined,
): CallObserver {
  const observers = [(e: UpstreamCallEvent) => onUpstreamCall(e.upstream, e.outcome, e.ms)];
  let pending: { upstream: Upstream; outcome: UpstreamCallOutcome; ms: number }[] = [];
  const flush = (): void => {
    const reports = pending;
    pending = [];
    for (const { upstream, outcome, ms } of reports) {
      const event = { upstream: labels.of(upstream), outcome, ms };
      emitGuarded(observers, event, log(), 'onUpstreamCall');
    }
  };
  return (upstream, outcome, ms) => {
    if (pending.push({ upstream, outcome, ms }) === 1) setImmediate(flush);
  };
}
