import { emitGuarded, RpcError } from '@rollup-router/core';
import { COMMITMENT_RANK } from '@rollup-router/solana';
import { StatusesError } from './errors.js';
import type { Logger } from 'pino';
import type { SignatureRelay } from './relay/signature-relay.js';
import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { ConfirmationStatus, SignatureStatus, TransactionError } from './status.js';

/** A signatureNotification's result, as a Solana validator sends it. */
export interface SignatureNotification {
  readonly context: { readonly apiVersion: string; readonly slot: number };
  readonly value: { readonly err: TransactionError | null };
}

export type WatchLookup = (signatures: readonly string[]) => Promise<GetSignatureStatusesResult>;

export interface WatchOptions {
  readonly pollIntervalMs: number;
  readonly maxLifetimeMs: number;
  /** Most distinct signatures pending at once: each is asked upstream every round. */
  readonly maxPendingSignatures: number;
}

/** The cap's warning is logged at most this often, with the refusals since the last one. */
const CAP_LOG_INTERVAL_MS = 60_000;

/** What one poll round did, for observers (tests, metrics). */
export interface PollRound {
  /** Distinct signatures asked. */
  readonly signatures: number;
  readonly notified: number;
  readonly expired: number;
}

const noop = (): void => undefined;

interface Watcher {
  readonly commitment: ConfirmationStatus;
  readonly rank: number;
  /** Releases its share of the upstream subscription (idempotent). */
  readonly release: () => void;
  readonly expires: number;
  readonly notify: (result: SignatureNotification) => void;
  /** Ends the subscription without a notification (its lifetime is over). */
  readonly end: () => void;
}

/**
 * The pending signatureSubscribe subscriptions of the service, by signature. Each is relayed
 * to the configured upstreams' websockets (SignatureRelay), whose first notification wins;
 * once an upstream acknowledges it, its status is checked once (it may have landed before),
 * with the others acknowledged in the same event-loop turn: one coalesced lookup. A new one
 * with no upstream socket open is checked at once instead.
 *
 * Polling is the fallback: each round, every pending signature that some configured
 * upstream does not relay (no websocket, socket down, subscribe refused) is polled in a
 * single lookup of the answer chain, which asks each upstream in batches of 256.
 */
export class SignatureWatch {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private fresh = new Set<string>();
  private freshScheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly roundObservers: ((round: PollRound) => void)[] = [];
  private readonly refusedObservers: (() => void)[] = [];
  /** Refusals not logged yet, and when the cap's warning was last logged. */
  private refusedSinceLog = 0;
  private capLoggedAt = -Infinity;

  constructor(
    private readonly lookup: WatchLookup,
    private readonly options: WatchOptions,
    private readonly log: () => Logger | undefined,
    /** Where subscriptions are relayed upstream; none: polling only. */
    private readonly relay?: SignatureRelay,
  ) {
    relay?.listen({
      acked: (signature) => this.check(signature),
      notified: (signature, commitment, result) =>
        this.reached(signature, COMMITMENT_RANK[commitment], result),
    });
  }

  /** Subscriptions waiting for their signature to reach their commitment. */
  get pending(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** Observes every regular poll round once it is done. Returns a function that stops observing. */
  onRound(observer: (round: PollRound) => void): () => void {
    this.roundObservers.push(observer);
    return () => this.roundObservers.splice(this.roundObservers.indexOf(observer) >>> 0, 1);
  }

  /** Observes every subscribe refused over maxPendingSignatures. Returns a function that stops observing. */
  onRefused(observer: () => void): () => void {
    this.refusedObservers.push(observer);
    return () => this.refusedObservers.splice(this.refusedObservers.indexOf(observer) >>> 0, 1);
  }

  /**
   * Whether `signature` may be watched, asked by signatureSubscribe before its subscription
   * opens: a signature already pending costs nothing more; a new one is refused with
   * -32064 once maxPendingSignatures distinct ones are pending, since each is asked of
   * every upstream every round. (The subscriptions of one message start together after
   * its answer, so a batch may pass the cap by its own size, once.)
   */
  admit(signature: string): void {
    const limit = this.options.maxPendingSignatures;
    if (this.watchers.size < limit || this.watchers.has(signature)) return;
    emitGuarded(this.refusedObservers, undefined, this.log(), 'onRefused');
    this.refusedSinceLog += 1;
    const now = Date.now();
    if (now - this.capLoggedAt >= CAP_LOG_INTERVAL_MS) {
      this.log()?.warn(
        { limit, refused: this.refusedSinceLog },
        'signatureSubscribe refused: maxPendingSignatures distinct signatures are pending',
      );
      this.capLoggedAt = now;
      this.refusedSinceLog = 0;
    }
    throw RpcError.from(StatusesError.TOO_MANY_PENDING_SIGNATURES, { limit });
  }

  /**
   * Calls `notify` once when `signature` reaches `commitment`, or `end` when the lifetime
   * is over first. Returns what cancels it. Not capped: signatureSubscribe asks admit() first.
   */
  watch(
    signature: string,
    commitment: ConfirmationStatus,
    notify: (result: SignatureNotification) => void,
    end: () => void,
  ): () => void {
    const expires = Date.now() + this.options.maxLifetimeMs;
    // Asked before the hold: an upstream socket that is open will acknowledge it, then it is checked.
    const relaying = this.relay?.relaying === true;
    const release = this.relay?.hold(signature, commitment) ?? noop;
    const watcher: Watcher = { commitment, rank: COMMITMENT_RANK[commitment], release, expires, notify, end };
    let set = this.watchers.get(signature);
    if (set === undefined) this.watchers.set(signature, (set = new Set()));
    set.add(watcher);
    if (!relaying) this.check(signature);
    return () => this.remove(signature, watcher);
  }

  /** Looks `signature` up once soon, with every other checked in the same event-loop turn. */
  private check(signature: string): void {
    this.fresh.add(signature);
    if (!this.freshScheduled) {
      this.freshScheduled = true;
      setImmediate(() => void this.checkFresh());
    }
  }

  start(): void {
    this.running = true;
    this.schedule(this.options.pollIntervalMs);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    for (const set of this.watchers.values()) for (const watcher of set) watcher.release();
    this.watchers.clear();
    this.fresh.clear();
  }

  private remove(signature: string, watcher: Watcher): void {
    const set = this.watchers.get(signature);
    watcher.release();
    if (set === undefined) return;
    set.delete(watcher);
    if (set.size === 0) this.watchers.delete(signature);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.round(), ms);
    this.timer.unref();
  }

  private async checkFresh(): Promise<void> {
    this.freshScheduled = false;
    const signatures = [...this.fresh].filter((s) => this.watchers.has(s));
    this.fresh = new Set();
    if (signatures.length > 0 && this.running) await this.poll(signatures);
  }

  /** One regular round: expire the old, ask about every pending signature, then schedule the next. */
  private async round(): Promise<void> {
    const started = Date.now();
    const expired = this.expire(started);
    const signatures = [...this.watchers].filter(([s, set]) => !this.relayed(s, set)).map(([s]) => s);
    const notified = signatures.length > 0 ? await this.poll(signatures) : 0;
    emitGuarded(
      this.roundObservers,
      { signatures: signatures.length, notified, expired },
      this.log(),
      'onRound',
    );
    this.schedule(Math.max(0, this.options.pollIntervalMs - (Date.now() - started)));
  }

  /** Looks the signatures up through the chain and notifies every watcher whose level is reached. */
  private async poll(signatures: readonly string[]): Promise<number> {
    let result: GetSignatureStatusesResult;
    try {
      result = await this.lookup(signatures);
    } catch (err) {
      this.log()?.warn({ err, signatures: signatures.length }, 'signature poll failed; retried next round');
      return 0;
    }
    let notified = 0;
    result.value.forEach((status, i) => {
      if (status) notified += this.polled(signatures[i]!, status, result.context.apiVersion);
    });
    return notified;
  }

  /** Whether every commitment pending on `signature` is relayed by every configured upstream. */
  private relayed(signature: string, set: ReadonlySet<Watcher>): boolean {
    if (this.relay === undefined) return false;
    for (const watcher of set) if (!this.relay.covers(signature, watcher.commitment)) return false;
    return true;
  }

  private polled(signature: string, status: SignatureStatus, apiVersion: string): number {
    // The validator's context slot is the transaction's own slot, not the current one.
    const result: SignatureNotification = {
      context: { apiVersion, slot: status.slot },
      value: { err: status.err },
    };
    return this.reached(signature, COMMITMENT_RANK[status.confirmationStatus], result);
  }

  /** Notifies, once, every watcher of `signature` at `rank` or below, polled or relayed alike. */
  private reached(signature: string, rank: number, result: SignatureNotification): number {
    const set = this.watchers.get(signature);
    if (set === undefined) return 0;
    let notified = 0;
    for (const watcher of [...set]) {
      if (watcher.rank > rank) continue;
      set.delete(watcher);
      watcher.release();
      notified += 1;
      watcher.notify(result);
    }
    if (set.size === 0) this.watchers.delete(signature);
    return notified;
  }

  /** Ends subscriptions past their lifetime: their clients have given up. */
  private expire(now: number): number {
    let expired = 0;
    for (const [signature, set] of this.watchers) {
      for (const watcher of set) {
        if (watcher.expires > now) continue;
        set.delete(watcher);
        watcher.release();
        expired += 1;
        watcher.end();
      }
      if (set.size === 0) this.watchers.delete(signature);
    }
    return expired;
  }
}
