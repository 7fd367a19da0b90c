import { setTimeout as sleep } from 'node:timers/promises';
import { address, createSolanaRpc, type Commitment } from '@solana/kit';
import { type PluginContext } from '@rollup-router/core';
import { redactUrl, withoutCredentials } from '@rollup-router/core/internal';
import type { EntryIssue } from '../check-route-list.js';
import type { RouteEntry } from '../generated/schemas.js';
import type { RouteSource, SourceReadiness } from '../sources/route-source.js';
import { RecordTable, type RecordState } from './record-table.js';
import { recordState, type ChainAccount } from './record-state.js';
import { retryDelayMs, shouldLog } from './retry.js';
import { createChainSubscriptions } from './websocket-channel.js';

type Logger = PluginContext['log'];

export interface ChainSourceSettings {
  readonly url: string;
  readonly wsUrl: string;
  readonly programId: string;
  readonly commitment: Commitment;
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

/** A request or subscription that does not answer within this time counts as a failure. */
const REQUEST_TIMEOUT_MS = 10_000;

function timeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer within ${REQUEST_TIMEOUT_MS} ms`)),
      REQUEST_TIMEOUT_MS,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The Magic Domain Program's registry as a route source. One full read
 * (getProgramAccounts) per connection, then live changes: programSubscribe tells of
 * registrations and updates, and an accountSubscribe on each record tells of its
 * unregistration, which programSubscribe never reports (the closed account leaves the
 * program). After a websocket drop it reconnects with backoff and reads everything again;
 * it also reads everything every `resyncMs`. Once a list has been read, an outage keeps it.
 */
export class ChainRouteSource implements RouteSource {
  readonly name: string;
  private readonly rpc;
  private readonly subscriptions;
  private readonly table: RecordTable;
  private readonly followed = new Map<string, AbortController>();
  private readonly skipped = new Map<string, string>();
  private readonly stopping = new AbortController();
  private session = new AbortController();
  private changed: (() => void) | undefined;
  private listed: readonly RouteEntry[] = [];
  private everRead = false;
  /**
   * Whether the current session got as far as following live (subscribed and read): its
   * end then starts a new failure streak. A session that could only read (websocket
   * down) keeps the streak growing, so the reads back off too.
   */
  private sessionLive = false;
  private lastError: string | undefined;
  private lastReport: ChainRecordsReport | undefined;
  /** The configured URLs, exactly as written (with any credentials), for scrubbing messages. */
  private readonly secrets: readonly string[];
  private firstAttempt: Promise<void>;
  private settleFirstAttempt!: () => void;

  constructor(
    private readonly settings: ChainSourceSettings,
    private readonly hooks: ChainSourceHooks,
  ) {
    this.name = `chain registry ${settings.programId} at ${redactUrl(settings.url)}`;
    this.table = new RecordTable({ maxRecords: settings.maxRecords });
    // fetch refuses a URL with user info: it goes as a Basic Authorization header instead.
    const { url, authorization } = withoutCredentials(settings.url);
    this.rpc = createSolanaRpc(url, authorization === undefined ? {} : { headers: { authorization } });
    this.subscriptions = createChainSubscriptions(settings.wsUrl, REQUEST_TIMEOUT_MS);
    this.secrets = [settings.url, url, settings.wsUrl, withoutCredentials(settings.wsUrl).url]
      .filter((u) => u !== redactUrl(u))
      .sort((a, b) => b.length - a.length);
    this.firstAttempt = new Promise((resolve) => (this.settleFirstAttempt = resolve));
  }

  /** The listed nodes; at start, after the first attempt to read them (read or failed). */
  async load(): Promise<unknown> {
    await this.firstAttempt;
    return this.listed;
  }

  subscribe(changed: () => void): () => void {
    this.changed = changed;
    void this.run();
    return () => {
      this.stopping.abort();
      this.session.abort();
      this.settleFirstAttempt();
    };
  }

  readiness(): SourceReadiness {
    if (this.everRead) return { ready: true };
    const why = this.lastError === undefined ? 'reading it' : this.lastError;
    return { ready: false, reason: `${this.name} not read yet: ${why}` };
  }

  /** Sessions one after the other until stopped; a failed one is retried with backoff. */
  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      this.session = new AbortController();
      this.sessionLive = false;
      const read = await this.runSession(this.session.signal).then(
        () => undefined,
        (err: unknown) => err,
      );
      this.session.abort();
      this.unfollowAll();
      if (this.stopping.signal.aborted) break;
      failures = this.sessionLive ? 1 : failures + 1;
      this.onFailure(read, failures);
      await sleep(retryDelayMs(failures), undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  private onFailure(err: unknown, failures: number): void {
    const message = err === undefined ? 'the websocket closed' : this.describe(err);
    this.lastError = message;
    this.settleFirstAttempt();
    if (!shouldLog(failures)) return;
    const kept = this.listed.length;
    this.hooks
      .log()
      ?.warn(
        { source: this.name, err: message, failures, retryInMs: retryDelayMs(failures), kept },
        this.everRead
          ? `the chain registry is unreachable, keeping the last list read (${kept} nodes)`
          : 'the chain registry is unreachable, no nodes from it yet',
      );
  }

  /**
   * One connection: subscribe to the program, read everything, follow each record, then
   * apply notifications until the websocket goes away (which ends the session).
   */
  private async runSession(session: AbortSignal): Promise<void> {
    const { programId, commitment } = this.settings;
    const program = address(programId);
    let subscribeError: unknown;
    const stream = await timeout(
      this.subscriptions
        .programNotifications(program, { encoding: 'base64', commitment })
        .subscribe({ abortSignal: session }),
      'programSubscribe',
    ).catch((err: unknown) => {
      subscribeError = err;
      return undefined;
    });
    // Read even when the websocket is down: a list that cannot be followed live still
    // beats none, and the resync interval keeps it fresh.
    await this.fullRead(session);
    if (!stream) throw subscribeError;
    this.sessionLive = true;
    this.hooks.log()?.debug({ source: this.name }, 'chain registry following live');
    const resync = setInterval(() => void this.resync(session), this.settings.resyncMs);
    try {
      for await (const n of stream) {
        this.apply(n.value.pubkey, n.value.account as ChainAccount, n.context.slot);
      }
    } finally {
      clearInterval(resync);
    }
  }

  private async resync(session: AbortSignal): Promise<void> {
    try {
      await this.fullRead(session);
    } catch (err) {
      this.hooks.log()?.warn({ source: this.name, err: this.describe(err) }, 'chain registry resync failed');
    }
  }

  /** getProgramAccounts at the slot it answers for; then follow every record it lists. */
  private async fullRead(session: AbortSignal): Promise<void> {
    const { programId, commitment } = this.settings;
    const abortSignal = AbortSignal.any([session, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    const { context, value } = await this.rpc
      .getProgramAccounts(address(programId), { encoding: 'base64', commitment, withContext: true })
      .send({ abortSignal });
    const states = new Map<string, RecordState>();
    for (const { pubkey, account } of value) states.set(pubkey, this.stateOf(account as ChainAccount));
    this.table.applyFullRead(states, context.slot);
    for (const pubkey of this.skipped.keys()) if (!this.table.isLive(pubkey)) this.skipped.delete(pubkey);
    for (const [pubkey, state] of states) if (this.table.isLive(pubkey)) this.noteSkipped(pubkey, state);
    this.reportRecords();
    const wasRead = this.everRead;
    this.everRead = true;
    this.lastError = undefined;
    if (!wasRead) this.hooks.log()?.info({ source: this.name, records: value.length }, 'chain registry read');
    this.settleFirstAttempt();
    this.publish();
    for (const a of this.table.liveAddresses()) this.follow(a, session);
    for (const a of this.followed.keys()) if (!this.table.isLive(a)) this.unfollow(a);
  }

  /** One account's new state, from a notification. */
  private apply(pubkey: string, account: ChainAccount | null, slot: bigint): void {
    const state = this.stateOf(account);
    const applied = this.table.apply(pubkey, state, slot);
    this.reportRecords();
    if (!applied) return;
    this.noteSkipped(pubkey, state);
    this.publish();
    if (state.kind === 'closed') this.unfollow(pubkey);
    else this.follow(pubkey, this.session.signal);
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
  private follow(pubkey: string, session: AbortSignal): void {
    if (this.followed.has(pubkey) || session.aborted) return;
    const own = new AbortController();
    this.followed.set(pubkey, own);
    void this.followRecord(pubkey, AbortSignal.any([session, own.signal]));
  }

  /**
   * Follows one record until unfollowed or the session ends. A failure of this record's
   * subscription or read is retried for this record alone, with backoff: the others keep
   * their subscriptions. A dead connection also ends the program subscription, and with
   * it the session, which starts everything over once.
   */
  private async followRecord(pubkey: string, following: AbortSignal): Promise<void> {
    const { commitment } = this.settings;
    let failures = 0;
    while (!following.aborted) {
      // Each attempt ends its own subscription: kit coalesces identical subscriptions and
      // keeps a failed one cached while anyone still holds it, so a retry under the same
      // signal would get the same failure back without asking the node again.
      const attempt = new AbortController();
      const abortSignal = AbortSignal.any([following, attempt.signal]);
      let live = false;
      try {
        const stream = await timeout(
          this.subscriptions
            .accountNotifications(address(pubkey), { encoding: 'base64', commitment })
            .subscribe({ abortSignal }),
          'accountSubscribe',
        );
        // A change between the notification that made us follow and this subscription taking
        // effect (an Unregister right after a Register) would otherwise wait for the resync.
        await this.readAccount(pubkey, abortSignal);
        live = true;
        for await (const n of stream) this.apply(pubkey, n.value as ChainAccount | null, n.context.slot);
        if (following.aborted) return;
        throw new Error('accountSubscribe ended');
      } catch (err) {
        if (following.aborted) return;
        failures = live ? 1 : failures + 1;
        const retryInMs = retryDelayMs(failures);
        const fields = { source: this.name, account: pubkey, err: this.describe(err), failures, retryInMs };
        if (shouldLog(failures)) this.hooks.log()?.warn(fields, `following registry record ${pubkey} failed`);
        attempt.abort();
        await sleep(retryInMs, undefined, { signal: following }).catch(() => undefined);
      } finally {
        attempt.abort();
      }
    }
  }

  private async readAccount(pubkey: string, session: AbortSignal): Promise<void> {
    const abortSignal = AbortSignal.any([session, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    const { context, value } = await this.rpc
      .getAccountInfo(address(pubkey), { encoding: 'base64', commitment: this.settings.commitment })
      .send({ abortSignal });
    this.apply(pubkey, value as ChainAccount | null, context.slot);
  }

  private unfollow(pubkey: string): void {
    this.followed.get(pubkey)?.abort();
    this.followed.delete(pubkey);
  }

  private unfollowAll(): void {
    for (const pubkey of [...this.followed.keys()]) this.unfollow(pubkey);
  }

  /**
   * An error's message fit for logs and the public /ready: the configured URLs, which
   * may carry credentials or API keys, shown redacted wherever they appear.
   */
  private describe(err: unknown): string {
    let message = err instanceof Error ? err.message : String(err);
    for (const secret of this.secrets) message = message.replaceAll(secret, redactUrl(secret));
    return message;
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
