import type { CallContext } from '@rollup-router/core';
import type { BlockhashForAccountsResult } from '../generated/schemas.js';
import type { UpstreamCaller } from './upstream-caller.js';
import type { Upstream } from './upstream.js';

interface LatestBlockhash {
  readonly value?: { readonly blockhash?: unknown; readonly lastValidBlockHeight?: unknown };
}

interface Read {
  readonly at: number;
  readonly value: Promise<BlockhashForAccountsResult>;
}

/**
 * Each chain's latest blockhash, read at most `maxAgeMs` ago: the calls of that span share
 * one getLatestBlockhash, as routers and wallets do (a blockhash stays valid for 150 slots).
 * A read is shared only while it succeeds: a failed one is forgotten, so the next call asks
 * again. Keyed by upstream name, so bounded by the base chain and the ERs of the route table.
 */
export class RecentBlockhashes {
  private readonly reads = new Map<string, Read>();

  constructor(
    private readonly caller: UpstreamCaller,
    private readonly maxAgeMs: number,
  ) {}

  /**
   * `call.signal` is read only for a read of its own: a call's signal is made on first use.
   * The call is told that `upstream` answered it, a shared read's answer included.
   */
  async of(
    upstream: Upstream,
    call: Pick<CallContext, 'signal' | 'answeredBy'>,
  ): Promise<BlockhashForAccountsResult> {
    const latest = await this.latest(upstream, call);
    call.answeredBy(this.caller.labelOf(upstream));
    return latest;
  }

  private latest(
    upstream: Upstream,
    call: { readonly signal: AbortSignal },
  ): Promise<BlockhashForAccountsResult> {
    // Not shared: a caller's signal ends only its own read.
    if (this.maxAgeMs === 0) return this.read(upstream, call.signal);
    const now = performance.now();
    const held = this.reads.get(upstream.name);
    if (held !== undefined && now - held.at <= this.maxAgeMs) return held.value;
    // Shared: no one caller's signal may end it (the upstream timeout bounds it).
    const value = this.read(upstream, undefined);
    const read = { at: now, value };
    this.reads.set(upstream.name, read);
    value.catch(() => {
      if (this.reads.get(upstream.name) === read) this.reads.delete(upstream.name);
    });
    return value;
  }

  private async read(
    upstream: Upstream,
    signal: AbortSignal | undefined,
  ): Promise<BlockhashForAccountsResult> {
    const reply = await this.caller.call<LatestBlockhash>(
      upstream,
      'getLatestBlockhash',
      [{ commitment: 'confirmed' }],
      { signal },
    );
    const { blockhash, lastValidBlockHeight } = reply?.value ?? {};
    if (
      typeof blockhash !== 'string' ||
      typeof lastValidBlockHeight !== 'number' ||
      lastValidBlockHeight < 1
    ) {
      throw this.caller.badReply(
        upstream,
        'getLatestBlockhash',
        'getLatestBlockhash answered no blockhash with a positive lastValidBlockHeight',
      );
    }
    return { blockhash, lastValidBlockHeight };
  }
}
