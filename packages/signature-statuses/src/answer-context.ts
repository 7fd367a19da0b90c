import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { SignatureStatus } from './status.js';

/** The context of one upstream answer. */
export interface UpstreamContext {
  readonly apiVersion: string;
  readonly slot: number;
}

/**
 * The one place `result.context` is made. Its slot never goes backwards: it is the highest
 * slot seen so far, from upstream answers and from every status served (from memory, the
 * store, imports or an upstream). Its apiVersion is the upstream's when one answered the
 * call, else the configured one.
 */
export class AnswerContext {
  private latestSlot = 0;

  constructor(private readonly apiVersion: string) {}

  /** A slot an upstream reported, even for a lookup whose callers are gone. */
  observe(slot: number): void {
    if (slot > this.latestSlot) this.latestSlot = slot;
  }

  /** The answer to a call whose statuses are `value` (one per requested signature, in request order). */
  answer(value: (SignatureStatus | null)[], upstream?: UpstreamContext): GetSignatureStatusesResult {
    for (const status of value) if (status && status.slot > this.latestSlot) this.latestSlot = status.slot;
    if (upstream) this.observe(upstream.slot);
    return {
      context: { apiVersion: upstream?.apiVersion ?? this.apiVersion, slot: this.latestSlot },
      value,
    };
  }
}
