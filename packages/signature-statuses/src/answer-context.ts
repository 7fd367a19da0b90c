import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { SignatureStatus } from './status.js';

/** The context of one upstream answer. */
export interface UpstreamContext {
  readonly apiVersion: string;
  readonly slot: number;
  /** An extra upstream's (anyone may register one): used for its own answer, never remembered. */
  readonly untrusted?: true;
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

  /**
   * The answer to a call whose statuses are `value` (one per requested signature, in
   * request order). The slots of the statuses at `untrusted` (an extra upstream's), and an
   * untrusted context's, count for this answer only: an extra upstream could otherwise
   * raise every later answer's slot for good.
   */
  answer(
    value: (SignatureStatus | null)[],
    upstream?: UpstreamContext,
    untrusted?: ReadonlySet<number>,
  ): GetSignatureStatusesResult {
    for (let i = 0; i < value.length; i++) {
      const status = value[i];
      if (status && status.slot > this.latestSlot && !untrusted?.has(i)) this.latestSlot = status.slot;
    }
    if (upstream && !upstream.untrusted) this.observe(upstream.slot);
    let slot = this.latestSlot;
    if (upstream?.untrusted) slot = Math.max(slot, upstream.slot);
    if (untrusted) for (const i of untrusted) slot = Math.max(slot, value[i]?.slot ?? 0);
    return { context: { apiVersion: upstream?.apiVersion ?? this.apiVersion, slot }, value };
  }
}
