import type { RawJson } from '@rollup-router/core';
import { UpstreamResult } from '@rollup-router/core/upstream-socket';

/** Reads an account on one upstream (getAccountInfo with these params): its result as the upstream wrote it. */
export type AccountRead = (params: readonly [string, Record<string, unknown>]) => Promise<RawJson>;

/** What a catch-up found: an accountNotification's result (getAccountInfo's, as written), or nothing to tell. */
export type CaughtUp = UpstreamResult | undefined;

interface Seen {
  /** The slot of the last notification, or of the last read. */
  slot: number | undefined;
  /**
   * Its account, the parsed value as notified: compared after a reconnect, never sent. Held
   * by reference; only a catch-up serialises it, not every notification (up to 10 MiB each).
   */
  account: { readonly value: unknown } | undefined;
  /** The socket closed since: what it notified meanwhile is lost until caught up. */
  behind: boolean;
  /** The read that stands for a notification when none came before the socket closed. */
  baseline: Promise<void> | undefined;
}

/**
 * Catches relayed accountSubscribes up after their upstream socket reconnects: a change made
 * while it was down is never notified by the upstream. Each such subscription, once it is
 * acknowledged again, is read with getAccountInfo (minContextSlot the last notification's
 * slot, so that a provider behind it cannot answer an older state) and its clients notified
 * when the account differs from the last notification. One never notified has no known
 * state: it is read when its socket closes, and compared with that (a change between the
 * close and that read is not told). Keyed by upstream and subscription, since the base chain
 * and an ER notify one subscription each in its own way.
 */
export class AccountCatchUp {
  /** By upstream, then subscription: no key built per notification. */
  private readonly seen = new Map<string, Map<string, Seen>>();

  /** A notification went to the clients: the state to compare with after a reconnect. */
  notified(upstream: string, key: string, result: UpstreamResult): void {
    this.note(this.entry(upstream, key), result.value);
  }

  /** The socket of `upstream` closed: `key` is behind until acknowledged again. */
  lost(upstream: string, key: string, params: unknown, read: AccountRead): void {
    const seen = this.entry(upstream, key);
    seen.behind = true;
    if (seen.account !== undefined || seen.baseline !== undefined) return;
    seen.baseline = read(readParams(params, undefined)).then(
      (answer) => {
        if (seen.account === undefined) this.note(seen, answer.value);
      },
      () => undefined,
    );
  }

  /**
   * `key` acknowledged on `upstream`: when it was behind, reads the account and resolves with
   * the notification to send, or undefined when nothing changed, when its state before is
   * unknown, or when a newer notification came while reading.
   */
  async acked(upstream: string, key: string, params: unknown, read: AccountRead): Promise<CaughtUp> {
    const seen = this.seen.get(upstream)?.get(key);
    if (seen === undefined || !seen.behind) return undefined;
    seen.behind = false;
    await seen.baseline;
    seen.baseline = undefined;
    if (seen.account === undefined) return undefined;
    const since = seen.slot;
    const answer = await read(readParams(params, since));
    const slot = slotOf(answer.value);
    if (slot === undefined) return undefined;
    // A notification at or after this read's slot came meanwhile: it told the clients already.
    if (seen.slot !== since && seen.slot !== undefined && seen.slot >= slot) return undefined;
    const before = seen.account;
    this.note(seen, answer.value);
    const changed = seen.account !== before && accountText(seen.account) !== accountText(before);
    // getAccountInfo's result is what an accountNotification carries ({ context, value }).
    return changed ? new UpstreamResult(answer.json, answer.value) : undefined;
  }

  /** The subscription ended on `upstream`. */
  forget(upstream: string, key: string): void {
    const ofUpstream = this.seen.get(upstream);
    ofUpstream?.delete(key);
    if (ofUpstream?.size === 0) this.seen.delete(upstream);
  }

  private note(seen: Seen, result: unknown): void {
    const slot = slotOf(result);
    if (slot !== undefined && seen.slot !== undefined && slot < seen.slot) return;
    seen.slot = slot;
    seen.account = { value: (result as { value?: unknown } | null)?.value ?? null };
  }

  private entry(upstream: string, key: string): Seen {
    let ofUpstream = this.seen.get(upstream);
    if (ofUpstream === undefined) {
      ofUpstream = new Map();
      this.seen.set(upstream, ofUpstream);
    }
    let seen = ofUpstream.get(key);
    if (seen === undefined) {
      seen = { slot: undefined, account: undefined, behind: false, baseline: undefined };
      ofUpstream.set(key, seen);
    }
    return seen;
  }
}

/** accountSubscribe's params as getAccountInfo's (the same config), at or after `minContextSlot`. */
function readParams(
  params: unknown,
  minContextSlot: number | undefined,
): readonly [string, Record<string, unknown>] {
  const [pubkey, config] = params as [string, Record<string, unknown> | undefined];
  return [pubkey, { ...config, ...(minContextSlot === undefined ? {} : { minContextSlot }) }];
}

function slotOf(result: unknown): number | undefined {
  const slot = (result as { context?: { slot?: unknown } | null } | null)?.context?.slot;
  return typeof slot === 'number' && Number.isSafeInteger(slot) ? slot : undefined;
}

const accountText = (account: Seen['account']): string | undefined =>
  account === undefined ? undefined : JSON.stringify(account.value);
