import type { MessageScope } from '../call.js';

/** One call as its span names it. */
export interface TracedCall {
  /** The method the client named. */
  readonly method: string;
  /** Whether the service serves it: an unknown name does not become a span name. */
  readonly known: boolean;
  /** The call's id as text; undefined for a notification or a null id. */
  readonly id: string | undefined;
}

/** A call's span, under way until its answer is made. */
export interface CallSpan {
  /** Runs `work` with this span current, so the upstream calls it makes are its children. */
  run<T>(work: () => T): T;
  /** Ends the span: `code` 0 is a success, any other the JSON-RPC error answered. */
  end(code: number, message: string | undefined): void;
}

/** A batch's span: its calls' spans are its children. */
export interface BatchSpan {
  end(): void;
}

/**
 * What the dispatcher asks of traces (tracing.ts makes it). Undefined when tracing is off:
 * then a call costs one field read, and no OpenTelemetry module is loaded.
 */
export interface CallTracing {
  batch(scope: MessageScope, length: number): BatchSpan;
  call(scope: MessageScope, batch: BatchSpan | undefined, call: TracedCall): CallSpan;
  /** Exports what is pending. */
  flush(): Promise<void>;
}
