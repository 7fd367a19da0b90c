import type { Logger } from 'pino';
import type { JsonrpcResponse } from './generated/schemas.js';
import {
  JsonRpcClient,
  type JsonRpcCall,
  type JsonRpcClientOptions,
  type JsonRpcOutcome,
} from './jsonrpc-client.js';

/** One provider of a chain, as the operator configured it. `name` is what logs, metrics and /ready show. */
export interface Provider {
  readonly name: string;
  /** Only ever called, never shown: it may carry credentials (userinfo, a key in the query). */
  readonly url: string;
  /** Headers its requests carry (an API key header); an `authorization` here wins over URL credentials. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Asks one provider one call: what a freshness probe uses. */
export type ProviderAsk = (method: string, params?: unknown) => Promise<JsonRpcOutcome>;

/** Why a provider is out: it failed (a connection error, a 5xx, a 429, a timeout), or it lags behind the best. */
export type ProviderHealth = 'healthy' | 'failing' | 'lagging';

export interface ProviderState {
  readonly name: string;
  readonly health: ProviderHealth;
  /** What took it out (an outcome, or how far behind it was); undefined while healthy. */
  readonly reason?: string;
  /** Its last freshness (a slot for Solana); undefined before its first probe. */
  readonly freshness?: number;
}

export interface ProviderSetOptions {
  readonly providers: readonly Provider[];
  /** Options of each provider's client (its headers come from the provider). */
  readonly client?: Omit<JsonRpcClientOptions, 'headers'>;
  /**
   * How fresh a provider is, as a number that grows as it follows the chain (Solana: getSlot),
   * or undefined when it did not answer. Probed every `probeIntervalMs` with more than one provider.
   */
  readonly freshness: (ask: ProviderAsk) => Promise<number | undefined>;
  /** A provider this far behind the freshest is out until it catches up. */
  readonly maxLag: number;
  /** How often healthy providers are probed, and the first wait before a failed one is probed again. */
  readonly probeIntervalMs: number;
  /** The longest wait between probes of a failed provider (the wait doubles from probeIntervalMs). */
  readonly maxBackoffMs: number;
  readonly probeTimeoutMs: number;
  /** Reads not answered after this long are asked of a second provider too; the first answer wins. Absent: never. */
  readonly hedgeAfterMs?: number;
  /**
   * A write sent again to another provider whose error says an earlier send was taken (Solana:
   * "already processed"): the result to answer instead, or undefined when the error is not that.
   */
  readonly alreadyTaken?: (
    method: string,
    params: unknown,
    error: NonNullable<JsonrpcResponse['error']>,
  ) => unknown;
  readonly log?: () => Logger | undefined;
}

/** Told of each attempt: which provider, what came back, and how long it took. */
export type ProviderAttemptObserver = (provider: string, outcome: JsonRpcOutcome, ms: number) => void;

export interface ProviderCall extends JsonRpcCall {
  /** A write (a transaction): never hedged, sent to another provider only when the first cannot have read it. */
  readonly write?: boolean;
  readonly onAttempt?: ProviderAttemptObserver;
}

/** A freshness probe's answer (a slot, a block number) is a few bytes. */
const MAX_PROBE_REPLY_BYTES = 64 * 1024;

interface Entry {
  readonly provider: Provider;
  readonly client: JsonRpcClient;
  health: ProviderHealth;
  reason: string | undefined;
  freshness: number | undefined;
  /** When a failed provider is probed next, and the wait after that. */
  nextProbeAt: number;
  backoffMs: number;
}

/**
 * The providers of one chain, in the operator's order of preference: a call goes to the first
 * healthy one. One that fails (no connection, a timeout, HTTP 429 or 5xx, an answer that is
 * not JSON-RPC) is taken out and probed with backoff until it answers; one that falls more than
 * `maxLag` behind the freshest is taken out until it catches up. With every provider out, calls
 * go to them all the same, in order: a chance beats a certain failure. Each change of health
 * is logged once.
 *
 * A read that fails goes to the next provider; a write goes to the next only after a failure
 * that the first provider answered itself (429, 5xx) or a connection failure, never after a
 * timeout, and is never hedged.
 */
export class ProviderSet {
  private readonly entries: Entry[];
  /** The entries as calls try them (see orderOf): rebuilt when a health changes, not per call. */
  private order: readonly Entry[];
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(private readonly options: ProviderSetOptions) {
    if (options.providers.length === 0) throw new TypeError('a provider set needs at least one provider');
    this.entries = options.providers.map((provider) => ({
      provider,
      client: new JsonRpcClient({ ...options.client, headers: provider.headers }),
      health: 'healthy',
      reason: undefined,
      freshness: undefined,
      nextProbeAt: 0,
      backoffMs: options.probeIntervalMs,
    }));
    this.order = this.entries;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The providers in the operator's order, each with its health now. */
  states(): ProviderState[] {
    return this.entries.map((e) => ({
      name: e.provider.name,
      health: e.health,
      reason: e.reason,
      freshness: e.freshness,
    }));
  }

  /** The provider calls go to now: the first healthy one, else the first. */
  current(): Provider {
    return this.order[0]!.provider;
  }

  /** Probes the providers from now until stop (only with more than one: one has no other to go to). */
  start(): void {
    if (this.entries.length < 2 || this.timer !== undefined) return;
    this.timer = setInterval(() => void this.probe(), this.options.probeIntervalMs);
    this.timer.unref();
    void this.probe();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all(this.entries.map((e) => e.client.close()));
  }

  async call(call: ProviderCall): Promise<JsonRpcOutcome> {
    const candidates = this.order;
    if (call.write) return this.write(call, candidates);
    if (this.options.hedgeAfterMs !== undefined && candidates.length > 1)
      return this.hedged(call, candidates);
    const started = performance.now();
    let last: JsonRpcOutcome | undefined;
    for (const entry of candidates) {
      const timeoutMs = call.timeoutMs - (performance.now() - started);
      if (last !== undefined && timeoutMs <= 0) break;
      last = await this.attempt(entry, { ...call, timeoutMs }, call.onAttempt);
      if (!failoverWorthy(last)) return last;
    }
    return last!;
  }

  /** Healthy first, in the operator's order, then the others in that order. */
  private reorder(): void {
    this.order = [
      ...this.entries.filter((e) => e.health === 'healthy'),
      ...this.entries.filter((e) => e.health !== 'healthy'),
    ];
  }

  private async attempt(
    entry: Entry,
    call: JsonRpcCall,
    onAttempt?: ProviderAttemptObserver,
  ): Promise<JsonRpcOutcome> {
    const started = performance.now();
    const outcome = await entry.client.call(entry.provider.url, call);
    onAttempt?.(entry.provider.name, outcome, performance.now() - started);
    const failure = failureOf(outcome);
    if (failure !== undefined) this.fail(entry, failure);
    return outcome;
  }

  private async write(call: ProviderCall, candidates: readonly Entry[]): Promise<JsonRpcOutcome> {
    let outcome = await this.attempt(candidates[0]!, call, call.onAttempt);
    for (let i = 1; i < candidates.length; i++) {
      if (!unreadByProvider(outcome)) break;
      outcome = await this.attempt(candidates[i]!, call, call.onAttempt);
      if (outcome.kind === 'reply' && outcome.reply.error != null) {
        const taken = this.options.alreadyTaken?.(call.method, call.params, outcome.reply.error);
        if (taken !== undefined) return tookIt(outcome, taken);
      }
    }
    return outcome;
  }

  /**
   * The first provider asked at once, the next after hedgeAfterMs (or at once when one fails):
   * the first usable answer wins and the others are cancelled. Each attempt gets the call's
   * time left, and one hedge at most: a provider launched because another failed is not
   * hedged at once by the timer of the first.
   */
  private hedged(call: ProviderCall, candidates: readonly Entry[]): Promise<JsonRpcOutcome> {
    const started = performance.now();
    return new Promise((resolve) => {
      const controllers: AbortController[] = [];
      let next = 0;
      let running = 0;
      let done = false;
      let last: JsonRpcOutcome | undefined;
      const finish = (outcome: JsonRpcOutcome): void => {
        done = true;
        clearTimeout(hedge);
        for (const c of controllers) c.abort();
        resolve(outcome);
      };
      const launch = (): boolean => {
        const entry = candidates[next];
        const timeoutMs = call.timeoutMs - (performance.now() - started);
        if (entry === undefined || done || (next > 0 && timeoutMs <= 0)) return false;
        next++;
        const own = new AbortController();
        controllers.push(own);
        const signal = call.signal === undefined ? own.signal : AbortSignal.any([call.signal, own.signal]);
        running++;
        void this.attempt(entry, { ...call, signal, timeoutMs }, call.onAttempt).then((outcome) => {
          running--;
          if (done) return;
          if (!failoverWorthy(outcome)) return finish(outcome);
          last = outcome;
          clearTimeout(hedge);
          if (!launch() && running === 0) finish(last);
        });
        return true;
      };
      const hedge = setTimeout(launch, this.options.hedgeAfterMs);
      launch();
    });
  }

  /**
   * Takes a provider out on a failure. Only the first failure sets when it is probed: the
   * calls in flight when it went down all fail too, and none of them is a probe that found it
   * still down (that is probeFailed, which backs off).
   */
  private fail(entry: Entry, reason: string): void {
    if (this.entries.length < 2) return;
    entry.reason = reason;
    if (entry.health === 'failing') return;
    this.options.log?.()?.warn({ provider: entry.provider.name, reason }, 'provider out: failing');
    entry.health = 'failing';
    entry.backoffMs = this.options.probeIntervalMs;
    entry.nextProbeAt = Date.now() + entry.backoffMs;
    this.reorder();
  }

  /** A probe of a provider already out found it still down: the wait before the next one doubles. */
  private probeFailed(entry: Entry): void {
    if (entry.health !== 'failing') return this.fail(entry, 'probe failed');
    entry.reason = 'probe failed';
    entry.backoffMs = Math.min(entry.backoffMs * 2, this.options.maxBackoffMs);
    entry.nextProbeAt = Date.now() + entry.backoffMs;
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      const now = Date.now();
      const due = this.entries.filter((e) => e.health !== 'failing' || e.nextProbeAt <= now);
      await Promise.all(due.map((e) => this.probeOne(e)));
      this.judgeLag();
    } finally {
      this.probing = false;
    }
  }

  private async probeOne(entry: Entry): Promise<void> {
    const ask: ProviderAsk = (method, params) =>
      entry.client.call(entry.provider.url, {
        method,
        params,
        timeoutMs: this.options.probeTimeoutMs,
        maxReplyBytes: MAX_PROBE_REPLY_BYTES,
      });
    const freshness = await this.options.freshness(ask).catch(() => undefined);
    if (freshness === undefined) return this.probeFailed(entry);
    entry.freshness = freshness;
    if (entry.health === 'failing') this.recover(entry, 'answers again');
  }

  /** Out when more than maxLag behind the freshest answer of this round, back when within it. */
  private judgeLag(): void {
    const known = this.entries.filter((e) => e.health !== 'failing' && e.freshness !== undefined);
    const best = Math.max(...known.map((e) => e.freshness!));
    for (const entry of known) {
      const behind = best - entry.freshness!;
      if (behind > this.options.maxLag) {
        if (entry.health === 'healthy') {
          entry.health = 'lagging';
          this.reorder();
          this.options.log?.()?.warn({ provider: entry.provider.name, behind }, 'provider out: lagging');
        }
        entry.reason = `${behind} behind the best`;
      } else if (entry.health === 'lagging') {
        this.recover(entry, 'caught up');
      }
    }
  }

  private recover(entry: Entry, why: string): void {
    entry.health = 'healthy';
    entry.reason = undefined;
    entry.backoffMs = this.options.probeIntervalMs;
    this.reorder();
    this.options.log?.()?.info({ provider: entry.provider.name }, `provider back: ${why}`);
  }
}

/** What makes a provider unfit now, or undefined when the outcome is the chain's own answer. */
function failureOf(outcome: JsonRpcOutcome): string | undefined {
  switch (outcome.kind) {
    case 'aborted':
      return undefined;
    case 'timeout':
    case 'unreachable':
      return outcome.kind;
    case 'bad_reply':
      if (outcome.problem === 'too_large') return undefined;
      return refusedStatus(outcome.httpStatus)
        ? `HTTP ${outcome.httpStatus}`
        : `bad reply: ${outcome.problem}`;
    case 'reply':
      return refusedStatus(outcome.httpStatus) ? `HTTP ${outcome.httpStatus}` : undefined;
  }
}

/** A read worth asking another provider: this one failed, short of a timeout (the caller's time is spent). */
function failoverWorthy(outcome: JsonRpcOutcome): boolean {
  return outcome.kind !== 'timeout' && failureOf(outcome) !== undefined;
}

/**
 * A write the provider did not take: no connection, or refused before the node answered
 * (429, 5xx from its gateway). A timeout may have been taken, so it is not sent again.
 */
function unreadByProvider(outcome: JsonRpcOutcome): boolean {
  if (outcome.kind === 'unreachable') return true;
  if (outcome.kind === 'reply' || outcome.kind === 'bad_reply') return refusedStatus(outcome.httpStatus);
  return false;
}

const refusedStatus = (status: number): boolean => status === 429 || status >= 500;

/** The answer of a resent write whose first send was taken: a success with `result`. */
function tookIt(outcome: Extract<JsonRpcOutcome, { kind: 'reply' }>, result: unknown): JsonRpcOutcome {
  const reply = { jsonrpc: '2.0' as const, id: outcome.reply.id, result };
  return { kind: 'reply', httpStatus: outcome.httpStatus, reply, text: JSON.stringify(reply) };
}
