import { setTimeout as sleep } from 'node:timers/promises';
import { address, createSolanaRpc, createSolanaRpcSubscriptions, type Commitment } from '@solana/kit';
import { redactUrl, type PluginContext } from '@rollup-router/core';
import type { EntryIssue } from '../check-route-list.js';
import type { RouteEntry } from '../generated/schemas.js';
import type { RouteSource, SourceReadiness } from '../sources/route-source.js';
import { RecordTable, type RecordState } from './record-table.js';
import { recordState, type ChainAccount } from './record-state.js';
import { retryDelayMs, shouldLog } from './retry.js';

type Logger = PluginContext['log'];

export interface ChainSourceSettings {
  readonly url: string;
  readonly wsUrl: string;
  readonly programId: string;
  readonly commitment: Commitment;
  readonly resyncMs: number;
}

export interface ChainSourceHooks {
  /** The route-entry schema's verdict on an entry (https only unless allowInsecure). */
  readonly entryIssues: (entry: RouteEntry) => readonly EntryIssue[];
  readonly log: () => Logger | undefined;
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
  private readonly table = new RecordTable();
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
  private firstAttempt: Promise<void>;
  private settleFirstAttempt!: () => void;

  constructor(
    private readonly settings: ChainSourceSettings,
    private readonly hooks: ChainSourceHooks,
  ) {
    this.name = `chain registry ${settings.programId} at ${redactUrl(settings.url)}`;
    this.rpc = createSolanaRpc(settings.url);
    this.subscriptions = createSolanaRpcSubscriptions(settings.wsUrl);
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
    const message = err instanceof Error ? err.message : String(err ?? 'the websocket closed');
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
      this.hooks
        .log()
        ?.warn({ source: this.name, err: (err as Error).message }, 'chain registry resync failed');
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
    for (const { pubkey, account } of value)
      states.set(pubkey, this.stateOf(pubkey, account as ChainAccount));
    this.table.applyFullRead(states, context.slot);
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
    const state = this.stateOf(pubkey, account);
    if (!this.table.apply(pubkey, state, slot)) return;
    this.publish();
    if (state.kind === 'closed') this.unfollow(pubkey);
    else this.follow(pubkey, this.session.signal);
  }

  private stateOf(pubkey: string, account: ChainAccount | null): RecordState {
    const state = recordState(account, this.settings.programId, this.hooks.entryIssues);
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
    return state;
  }

  /** accountSubscribe on a record: its changes, and its closing, which programSubscribe never reports. */
  private follow(pubkey: string, session: AbortSignal): void {
    if (this.followed.has(pubkey) || session.aborted) return;
    const own = new AbortController();
    this.followed.set(pubkey, own);
    const abortSignal = AbortSignal.any([session, own.signal]);
    const { commitment } = this.settings;
    const follow = async (): Promise<void> => {
      const stream = await timeout(
        this.subscriptions
          .accountNotifications(address(pubkey), { encoding: 'base64', commitment })
          .subscribe({ abortSignal }),
        'accountSubscribe',
      );
      // A change between the notification that made us follow and this subscription taking
      // effect (an Unregister right after a Register) would otherwise wait for the resync.
      await this.readAccount(pubkey, abortSignal);
      for await (const n of stream) this.apply(pubkey, n.value as ChainAccount | null, n.context.slot);
    };
    follow().catch((err: unknown) => {
      // A subscription that fails on its own means the connection is unwell: start over.
      if (abortSignal.aborted) return;
      this.hooks
        .log()
        ?.debug(
          { source: this.name, account: pubkey, err: (err as Error).message },
          'accountSubscribe failed',
        );
      this.session.abort();
    });
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

  /** Tells the registry only when the listed nodes changed. */
  private publish(): void {
    const listed = this.table.entries();
    if (JSON.stringify(listed) === JSON.stringify(this.listed)) return;
    this.listed = listed;
    this.changed?.();
  }
}
