import type { UpstreamCallOutcome } from '../upstream-call.js';

/** One upstream call's span, ended with its outcome (and the upstream's error, for `rpc_error`). */
export interface UpstreamSpan {
  end(outcome: UpstreamCallOutcome, error?: { readonly code: number; readonly message: string }): void;
}

type UpstreamSpanStarter = (upstream: string, method: string, id: number) => UpstreamSpan | undefined;

/**
 * The one way the JSON-RPC client, which knows no service, finds the span of the call it
 * works for: set once OpenTelemetry tracing is loaded, until then undefined (so an
 * upstream call costs one variable read and loads nothing).
 */
let starter: UpstreamSpanStarter | undefined;

export function setUpstreamSpanStarter(start: UpstreamSpanStarter): void {
  starter = start;
}

/**
 * A child span of the current call's span for a call to `upstream` (its name, never its
 * URL); undefined when tracing is off or no traced call is under way (a probe, a timer).
 */
export function startUpstreamSpan(upstream: string, method: string, id: number): UpstreamSpan | undefined {
  return starter?.(upstream, method, id);
}
