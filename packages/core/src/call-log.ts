import type { Level, Logger } from 'pino';
import type { CoreOptionsResolved } from './generated/schemas.js';

export type CallLogOptions = CoreOptionsResolved['callLog'];

/**
 * Whether a call's outcome gets its log line, and at which level (the `callLog` option).
 * Every failure is written: failures are what operators debug from. Successes are
 * sampled by a counter, not at random, so a test (or an operator) can tell which lines
 * appear: the first success, then one in `every`. Built once per service, it keeps its
 * counter across calls and allocates nothing per call beyond the line itself.
 */
export class CallLog {
  private readonly level: Level;
  /** One success in `every` is written; 1 writes them all, with today's line unchanged. */
  private readonly every: number;
  /** The share kept, written on each sampled line so a log consumer can scale counts back up. */
  private readonly sampleRate: number;
  /** Successes not written since the last one that was; starts full so the first success is written. */
  private skipped: number;

  constructor(options: CallLogOptions) {
    this.level = options.level;
    this.every = Math.max(1, Math.round(1 / options.sampleRate));
    this.sampleRate = 1 / this.every;
    this.skipped = this.every - 1;
  }

  /** Writes the line of one call (code 0 is a success) when the options say so, naming the upstreams that answered it. */
  write(
    log: Logger,
    reqId: string,
    method: string,
    durationMs: number,
    code: number,
    upstreams?: readonly string[],
  ): void {
    const ms = roundMs(durationMs);
    // Lines of one shape each, so that pino's serializing stays on V8's fast path.
    if (code !== 0 || this.every === 1) {
      if (upstreams === undefined) log[this.level]({ reqId, method, ms, code }, 'call');
      else log[this.level]({ reqId, method, ms, code, upstream: upstreams.join(',') }, 'call');
      return;
    }
    if (this.skipped < this.every - 1) {
      this.skipped++;
      return;
    }
    this.skipped = 0;
    const { sampleRate } = this;
    if (upstreams === undefined) log[this.level]({ reqId, method, ms, code, sampleRate }, 'call');
    else log[this.level]({ reqId, method, ms, code, upstream: upstreams.join(','), sampleRate }, 'call');
  }
}

/** Microseconds are enough: a longer fraction is noise in a log line. */
const roundMs = (durationMs: number): number => Math.round(durationMs * 1000) / 1000;
