import { emitGuarded, type PluginContext, type UpstreamCallOutcome } from '@rollup-router/core';

type Logger = PluginContext['log'];

/** Which layer of the answer chain settled a signature. `unknown`: every source answered, none knew it. */
export type LookupLayer = 'memory' | 'store' | 'redis' | 'upstream' | 'unknown';

/** What became of one request to one upstream: the words every plugin reports it with (core's). */
export type { UpstreamCallOutcome };

/** The observer hooks among the options: the embedder's code, so each call is guarded. */
export interface StatusesObservers {
  /**
   * Once per upstream asked (a retry belongs to the same ask), with the upstream's name: a
   * configured upstream's (its `name`, else its redacted URL, numbered when two share one),
   * an extra one's label when given (ExtraUpstream), else its redacted URL. Never a path or
   * query, where API keys live.
   */
  readonly onUpstreamCall?: (upstream: string, outcome: UpstreamCallOutcome, ms: number) => void;
  /** Once per lookup and layer with how many distinct signatures that layer settled (never with 0). */
  readonly onLookup?: (layer: LookupLayer, count: number) => void;
}

interface UpstreamCallEvent {
  readonly upstream: string;
  readonly outcome: UpstreamCallOutcome;
  readonly ms: number;
}

interface LookupEvent {
  readonly layer: LookupLayer;
  readonly count: number;
}

/**
 * Where the chain reports what happened: the embedder's hooks, each call guarded (one that
 * throws is logged and ignored, never failing a lookup), and the plugin's logger.
 */
export class StatusEvents {
  private attached: Logger | undefined;
  private readonly upstreamCalls: ((event: UpstreamCallEvent) => void)[] = [];
  private readonly lookups: ((event: LookupEvent) => void)[] = [];

  constructor(observers: StatusesObservers) {
    const { onUpstreamCall, onLookup } = observers;
    if (onUpstreamCall) this.upstreamCalls.push((e) => onUpstreamCall(e.upstream, e.outcome, e.ms));
    if (onLookup) this.lookups.push((e) => onLookup(e.layer, e.count));
  }

  /** The plugin's logger, from start() on. */
  attach(log: Logger): void {
    this.attached = log;
  }

  get log(): Logger {
    if (!this.attached) throw new Error('signature-statuses: not started');
    return this.attached;
  }

  upstreamCall(upstream: string, outcome: UpstreamCallOutcome, ms: number): void {
    if (this.upstreamCalls.length > 0)
      emitGuarded(this.upstreamCalls, { upstream, outcome, ms }, this.attached, 'onUpstreamCall');
  }

  lookup(layer: LookupLayer, count: number): void {
    if (count > 0 && this.lookups.length > 0)
      emitGuarded(this.lookups, { layer, count }, this.attached, 'onLookup');
  }
}
