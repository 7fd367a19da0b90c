import { setMaxListeners } from 'node:events';
import {
  OutageLog,
  redactUrl,
  type PluginContext,
  type ProviderSet,
  type ProviderState,
} from '@rollup-router/core';
import { DEFAULT_SUBSCRIPTIONS_PER_SOCKET, UpstreamPool } from '@rollup-router/core/upstream-pool';
import type { UpstreamResult, UpstreamSubscription } from '@rollup-router/core/upstream-socket';
import {
  currentWsUrl,
  refusalSummary,
  solanaProviders,
  solanaProviderSet,
  type SolanaChainConfig,
} from '@rollup-router/solana';
import type { EntryIssue } from '../check-route-list.js';
import type { RouteEntry } from '../generated/schemas.js';
import type { RouteSource, SourceReadiness } from '../sources/route-source.js';
import { accountAtSlot, keyedAccountAtSlot } from './chain-answers.js';
import { ChainReader } from './chain-reader.js';
import { RecordTable, type RecordState } from './record-table.js';
import { recordState, type ChainAccount } from './record-state.js';
import { retryDelayMs } from './retry.js';

type Logger = PluginContext['log'];

/** routes.chain as the schema resolves it: the cluster (one URL or several providers) and the registry. */
export interface ChainSourceSettings extends SolanaChainConfig {
  readonly programId: string;
  readonly resyncMs: number;
  readonly maxRecords: number;
}
/** How many registry records are followed, and how many are not for want of room. */
export interface ChainRecordsReport {
  readonly source: string;
  readonly maxRecords: number;
  readonly followed: number;
  /** Existing records not followed because maxRecords are; 0 while under the cap. */
  readonly notFollowed: number;
}

export interface ChainSourceHooks {
  /** The route-entry schema's verdict on an entry (https only unless allowInsecure). */
  readonly entryIssues: (entry: RouteEntry) => readonly EntryIssue[];
  readonly log: () => Logger | undefined;
  /** Told whenever the number of records followed or not followed changes (metrics). */
  readonly records?: (report: ChainRecordsReport) => void;
}

/** A request, or the first subscription's acknowledgement, that does not come within this time counts as a failure. */
const REQUEST_TIMEOUT_MS = 10_000;
/** A socket that stops answering (half-open) is replaced within two pings. */
const PING_INTERVAL_MS = 5_000;
const RECONNECT_MAX_DELAY_MS = 5_000;

/** The key of the program subscription in the pool; a record's key is its address (never this short). */
const PROGRAM = 'program';

/** Where a subscription stands after its upstream refused it, or its follow-up read failed. */
interface Retry {
  readonly failures: OutageLog;
  timer?: NodeJS.Timeout;
}

/**
 * The Magic Domain Program's registry as a route source. A full read (getProgramAccounts)
 * once the program subscription is acknowledged, then live changes: programSubscribe
 * tells of registrations and updates, and an accountSubscribe on each record tells of its
 * unregistration, which programSubscribe never reports (the closed account leaves the
 * program). Subscriptions ride core's upstream sockets (pooled, pinged, credentials as a
 * header): any close of one, a clean 1000 included, loses what was notified meanwhile, so
 * when the program subscription is acknowledged again everything is read again, and each
 * record is read again when its own subscription is. It also reads everything every
 * `resyncMs`, and with backoff after a failed read. Once a list has been read, an outage
 * keeps it.
 */
export class ChainRouteSource implements RouteSource {
  readonly name: string;
  private readonly providers: ProviderSet;
  private readonly reader: ChainReader;
  private readonly pool: UpstreamPool;
  private readonly table: RecordTable;
  /** Records subscribed to (or waiting to be again after a failure). */
  private readonly followed = new Set<string>();
  private readonly retries = new Map<string, Retry>();
  private readonly skipped = new Map<string, string>();
  private readonly stopping = new AbortController();
  private changed: (() => void) | undefined;
  private listed: readonly RouteEntry[] = [];
  private everRead = false;
  /** Whether the program subscription is acknowledged (and its socket has not closed since). */
  private live = false;
  /** Whether "following live" was said since the program subscription was last acknowledged. */
  private saidLive = false;
  /** The program subscription was acknowledged since the last full read began: read again. */
  private readAgain = false;
  /** Ends the reading loop's pause early. */
  private wake: (() => void) | undefined;
  /** Set until the first full read begins: it waits for the program subscription to settle. */
  private starting = true;
  private lastError: string | undefined;
  private lastReport: ChainRecordsReport | undefined;
  private firstAttempt: Promise<void>;
  private settleFirstAttempt!: () => void;

  constructor(
    private readonly settings: ChainSourceSettings,
    private readonly hooks: ChainSourceHooks,
  ) {
    // The one-URL form's provider is named by its redacted URL: errors and logs name it so.
    const list = solanaProviders(
      settings,
      settings.url === undefined ? '' : redactUrl(settings.url),
      'routes options: chain',
    );
    this.name = `chain registry ${settings.programId} at ${list.map((p) => p.name).join(', ')}`;
    this.table = new RecordTable({ maxRecords: settings.maxRecords });
    this.providers = solanaProviderSet(settings, list, { timeoutMs: REQUEST_TIMEOUT_MS, log: hooks.log });
    this.reader = new ChainReader(this.providers, settings.commitment, REQUEST_TIMEOUT_MS);
    this.pool = new UpstreamPool(
      this.name,
      // A reconnect goes to the provider preferred then.
      currentWsUrl(this.providers, list),
      {
        acked: (key) => this.acked(key),
        refused: (key, error) => this.failed(key, new Error(`refused: ${JSON.stringify(error)}`)),
        notified: (key, result) => this.notified(key, result),
        lost: (keys) => this.lost(keys),
        disconnected: (keys) => {
          // No acknowledgement is coming soon: the first read goes ahead without it.
          if (this.starting && keys.includes(PROGRAM)) this.wakeUp();
        },
      },
      {
        pingIntervalMs: PING_INTERVAL_MS,
        reconnectMaxDelayMs: RECONNECT_MAX_DELAY_MS,
        handshakeTimeoutMs: REQUEST_TIMEOUT_MS,
        subscriptionsPerSocket: DEFAULT_SUBSCRIPTIONS_PER_SOCKET,
        fallback: 'registry changes show at the next full read',
      },
      hooks.log,
    );
    this.firstAttempt = new Promise((resolve) => (this.settleFirstAttempt = resolve));
    // Every read under way listens to it: after a reconnect, one per record followed.
    setMaxListeners(0, this.stopping.signal);
  }

  /** The listed nodes; at start, after the first attempt to read them (read or failed). */
  async load(): Promise<unknown> {
    await this.firstAttempt;
    return this.listed;
  }

  subscribe(changed: () => void): () => void {
    this.changed = changed;
    this.providers.start();
    this.pool.start();
    this.subscribeUpstream(PROGRAM);
    void this.run();
    return () => {
      this.stopping.abort();
      this.pool.stop();
      for (const retry of this.retries.values()) clearTimeout(retry.timer);
      this.retries.clear();
      this.followed.clear();
      this.wakeUp();
      this.settleFirstAttempt();
      void this.providers.stop();
    };
  }

  /** Its providers and their health when the operator listed several (`providers`); undefined for one URL. */
  providerStates(): ProviderState[] | undefined {
    return this.settings.providers === undefined ? undefined : this.providers.states();
  }

  /** How many records followed are not listed, by reason (an http:// node without allowInsecure, say). */
  refused(): Record<string, number> {
    return countByReason(this.skipped.values());
  }

  readiness(): SourceReadiness {
    if (this.everRead) return { ready: true };
    const why = this.lastError === undefined ? 'reading it' : this.lastError;
    return { ready: false, reason: `${this.name} not read yet: ${why}` };
  }

  /**
   * Full reads until stopped: the first once the program subscription is acknowledged (so
   * that no change falls between the read and the subscription) or cannot be soon; then one
   * whenever it is acknowledged again, every resyncMs, and with backoff after a failure.
   */
  private async run(): Promise<void> {
    await this.pause(REQUEST_TIMEOUT_MS);
    this.starting = false;
    const failures = new OutageLog();
    while (!this.stopping.signal.aborted) {
      this.readAgain = false;
      const liveBefore = this.live;
      try {
        await this.fullRead();
        failures.ended();
        if (liveBefore && this.live && !this.saidLive) {
          this.saidLive = true;
          this.hooks.log()?.debug({ source: this.name }, 'chain registry following live');
        }
      } catch (err) {
        if (this.stopping.signal.aborted) break;
        this.onFailure(err, failures);
      }
      const inARow = failures.failuresInARow;
      await this.pause(inARow === 0 ? this.settings.resyncMs : retryDelayMs(inARow));
    }
  }

  /** Waits `ms`, or less when a full read is due sooner (or the source stops). */
  private pause(ms: number): Promise<void> {
    if (this.readAgain || this.stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private wakeUp(): void {
    this.wake?.();
  }

  private onFailure(err: unknown, outage: OutageLog): void {
    const message = describe(err);
    this.lastError = message;
    this.settleFirstAttempt();
    if (!outage.failed()) return;
    const kept = this.listed.length;
    const failures = outage.failuresInARow;
    this.hooks
      .log()
      ?.warn(
        { source: this.name, err: message, failures, retryInMs: retryDelayMs(failures), kept },
        this.everRead
          ? `the chain registry is unreachable, keeping the last list read (${kept} nodes)`
          : 'the chain registry is unreachable, no nodes from it yet',
      );
  }

  /** getProgramAccounts at the slot it answers for; then follow every record it lists. */
  private async fullRead(): Promise<void> {
    const { slot, accounts } = await this.reader.programAccounts(
      this.settings.programId,
      this.stopping.signal,
    );
    const states = new Map<string, RecordState>();
    for (const { pubkey, account } of accounts) states.set(pubkey, this.stateOf(account));
    this.table.applyFullRead(states, slot);
    for (const pubkey of this.skipped.keys()) if (!this.table.isLive(pubkey)) this.skipped.delete(pubkey);
    for (const [pubkey, state] of states) if (this.table.isLive(pubkey)) this.noteSkipped(pubkey, state);
    this.reportRecords();
    const wasRead = this.everRead;
    this.everRead = true;
    this.lastError = undefined;
    if (!wasRead) this.sayFirstRead(accounts.length);
    this.settleFirstAttempt();
    this.publish();
    for (const a of this.table.liveAddresses()) this.follow(a);
    for (const a of this.followed) if (!this.table.isLive(a)) this.unfollow(a);
  }

  /**
   * The first read in one line, with the records it could not list counted by reason:
   * each was warned about on its own, and this line says at once why none may be served.
   */
  private sayFirstRead(records: number): void {
    const refused = this.refused();
    const count = Object.values(refused).reduce((sum, n) => sum + n, 0);
    const log = this.hooks.log();
    if (count === 0) return void log?.info({ source: this.name, records }, 'chain registry read');
    log?.warn(
      { source: this.name, records, refused },
      `chain registry read: ${count} of ${records} records refused (${refusalSummary(refused)})`,
    );
  }

  /** One account's new state, from a notification or a read. */
  private apply(pubkey: string, account: ChainAccount | null, slot: bigint): void {
    const state = this.stateOf(account);
    const applied = this.table.apply(pubkey, state, slot);
    this.reportRecords();
    if (!applied) return;
    this.noteSkipped(pubkey, state);
    this.publish();
    if (state.kind === 'closed') this.unfollow(pubkey);
    else this.follow(pubkey);
  }

  private stateOf(account: ChainAccount | null): RecordState {
    return recordState(account, this.settings.programId, this.hooks.entryIssues);
  }

  /**
   * Warns once per record and reason about a record that cannot be listed. Only records
   * followed are named: past maxRecords, a flood of bad records costs no log lines.
   */
  private noteSkipped(pubkey: string, state: RecordState): void {
    const reason = state.kind === 'unlisted' && state.skipped ? state.why : undefined;
    if (reason === undefined) this.skipped.delete(pubkey);
    else if (this.skipped.get(pubkey) !== reason) {
      this.skipped.set(pubkey, reason);
      this.hooks
        .log()
        ?.warn(
          { source: this.name, account: pubkey, reason },
          `registry record ${pubkey} skipped: ${reason}`,
        );
    }
  }

  /** accountSubscribe on a record: its changes, and its closing, which programSubscribe never reports. */
  private follow(pubkey: string): void {
    if (this.followed.has(pubkey) || this.stopping.signal.aborted) return;
    this.followed.add(pubkey);
    this.subscribeUpstream(pubkey);
  }

  private unfollow(pubkey: string): void {
    if (!this.followed.delete(pubkey)) return;
    clearTimeout(this.retries.get(pubkey)?.timer);
    this.retries.delete(pubkey);
    this.pool.unsubscribe(pubkey);
  }

  private subscribeUpstream(key: string): void {
    this.pool.subscribe(key, this.subscriptionOf(key));
  }

  private subscriptionOf(key: string): UpstreamSubscription {
    const config = { encoding: 'base64', commitment: this.settings.commitment };
    return key === PROGRAM
      ? {
          subscribe: 'programSubscribe',
          unsubscribe: 'programUnsubscribe',
          notification: 'programNotification',
          params: [this.settings.programId, config],
        }
      : {
          subscribe: 'accountSubscribe',
          unsubscribe: 'accountUnsubscribe',
          notification: 'accountNotification',
          params: [key, config],
        };
  }

  private acked(key: string): void {
    if (key !== PROGRAM) return void this.readRecord(key);
    this.retries.delete(PROGRAM);
    this.live = true;
    this.saidLive = false;
    this.readAgain = true;
    this.wakeUp();
  }

  /**
   * Reads a record once its subscription is acknowledged: a change between the notification
   * that made us follow it and the subscription taking effect (an Unregister right after a
   * Register), or made while its socket was down, would otherwise wait for the next full read.
   */
  private async readRecord(pubkey: string): Promise<void> {
    try {
      const { slot, account } = await this.reader.account(pubkey, this.stopping.signal);
      if (!this.followed.has(pubkey)) return;
      this.retries.delete(pubkey);
      this.apply(pubkey, account, slot);
    } catch (err) {
      if (this.followed.has(pubkey)) this.failed(pubkey, err);
    }
  }

  /**
   * A subscription the upstream refused, or a record whose read after it failed: retried for
   * that key alone, with backoff; the other subscriptions stay as they are.
   */
  private failed(key: string, err: unknown): void {
    if (this.stopping.signal.aborted || (key !== PROGRAM && !this.followed.has(key))) return;
    const retry = this.retries.get(key) ?? { failures: new OutageLog() };
    this.retries.set(key, retry);
    const logged = retry.failures.failed();
    clearTimeout(retry.timer);
    const failures = retry.failures.failuresInARow;
    const retryInMs = retryDelayMs(failures);
    if (logged) {
      const fields = { source: this.name, err: describe(err), failures, retryInMs };
      if (key === PROGRAM) this.hooks.log()?.warn(fields, 'programSubscribe on the chain registry failed');
      else this.hooks.log()?.warn({ ...fields, account: key }, `following registry record ${key} failed`);
    }
    // The first read need not wait for a subscription that was refused.
    if (key === PROGRAM && this.starting) this.wakeUp();
    this.pool.unsubscribe(key);
    retry.timer = setTimeout(() => {
      retry.timer = undefined;
      if (key === PROGRAM || this.followed.has(key)) this.subscribeUpstream(key);
    }, retryInMs);
  }

  private notified(key: string, result: UpstreamResult): boolean {
    if (key === PROGRAM) {
      const changed = keyedAccountAtSlot(result.value);
      if (changed) this.apply(changed.pubkey, changed.account, changed.slot);
    } else {
      const changed = accountAtSlot(result.value);
      if (changed) this.apply(key, changed.account, changed.slot);
    }
    return true;
  }

  /** A socket closed: what its subscriptions would have notified meanwhile is read again once they are renewed. */
  private lost(keys: readonly string[]): void {
    if (!keys.includes(PROGRAM)) return;
    this.live = false;
    this.hooks
      .log()
      ?.info(
        { source: this.name },
        'the chain registry websocket closed; reading everything again once back',
      );
  }

  /**
   * Tells the hook when the numbers change; warns once when records start to be left
   * out for want of room (not per record, not per read), and says when all fit again.
   */
  private reportRecords(): void {
    const { maxRecords } = this.settings;
    const report = {
      source: this.name,
      maxRecords,
      followed: this.table.followed(),
      notFollowed: this.table.notFollowed(),
    };
    const last = this.lastReport;
    if (last?.followed === report.followed && last.notFollowed === report.notFollowed) return;
    this.lastReport = report;
    const log = this.hooks.log();
    if (report.notFollowed > 0 && !(last && last.notFollowed > 0)) {
      log?.warn(
        report,
        `the chain registry has more records than chain.maxRecords (${maxRecords}): ${report.notFollowed} not followed, ` +
          'new ones are not listed until there is room; raise chain.maxRecords or list your nodes in routes or file',
      );
    } else if (report.notFollowed === 0 && last && last.notFollowed > 0) {
      log?.info(report, `every chain registry record is followed again (chain.maxRecords ${maxRecords})`);
    }
    this.hooks.records?.(report);
  }

  /** Tells the registry only when the listed nodes changed. */
  private publish(): void {
    const listed = this.table.entries();
    if (JSON.stringify(listed) === JSON.stringify(this.listed)) return;
    this.listed = listed;
    this.changed?.();
  }
}

const countByReason = (reasons: Iterable<string>): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const reason of reasons) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
};

/** An error's message for logs and the public /ready: the reader's errors show URLs redacted only. */
const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));
