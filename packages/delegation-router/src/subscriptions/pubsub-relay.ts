import { ErrorCode, RpcError, SerializedResult, type PluginContext } from '@rollup-router/core';
import { deriveWsUrl } from '@rollup-router/solana';
import { UpstreamPool, type UpstreamPoolOptions } from '@rollup-router/core/upstream-pool';
import type { WsUrl } from '@rollup-router/core/upstream-socket';
import type { UpstreamResult, UpstreamSubscription } from '@rollup-router/core/upstream-socket';
import { LRUCache } from 'lru-cache';
import type { ProgramErLookup } from '../delegation/program-ers.js';
import type { Routing } from '../routing.js';
import type { Upstream } from '../upstream/upstream.js';
import { AccountCatchUp, type AccountRead } from './account-catch-up.js';
import type { NotifiedShape } from './subscription-table.js';

/** ERs routing may not use remembered by default, so as to warn once each. */
export const MAX_UNKNOWN_ERS = 1000;

type Logger = PluginContext['log'];

/** One client subscription's end of a relayed subscription. */
export interface RelayHolder {
  /**
   * A notification: `result` serialized once for every client of it (the upstream's own
   * text), `value` that text parsed (for reading its shape only: u64 fields are not exact).
   */
  deliver(result: SerializedResult, value: unknown): void;
  /** An upstream no longer serves it (it refused it when subscribed again): the client's end, saying why. */
  lose(reason: string): void;
}

/**
 * What a relayed subscription follows on the ERs besides the base chain: the ER an account
 * is delegated to, or the ERs a program's delegated accounts are; none (the base chain only).
 */
export type Follows =
  | { readonly account: string; readonly program?: never }
  | { readonly program: string; readonly account?: never }
  | undefined;

/** One distinct relayed subscription: what the clients that share it asked for, normalized. */
export interface Relayed {
  /** Its identity: clients holding the same key share one upstream subscription per upstream. */
  readonly key: string;
  readonly follows: Follows;
  readonly subscription: UpstreamSubscription;
  /** The shape of its notifications' result; another shape is logged and dropped. */
  readonly notified: NotifiedShape;
}

interface Client {
  readonly holder: RelayHolder;
  /** Its subscribe call, while it waits for the base chain's acknowledgement. */
  waiting: { readonly acked: () => void; readonly refused: (error: RpcError) => void } | undefined;
}

interface Held extends Relayed {
  readonly clients: Set<Client>;
  /** The ER sockets it is subscribed on too, each with its ER's identity. */
  readonly ers: Map<UpstreamPool, string>;
  /** Whether the base chain acknowledged it: a new client is answered at once. */
  acked: boolean;
}

/** The base-chain subscription that tells of a program's new delegations, shared by its relayed programSubscribes. */
interface ProgramWatch {
  readonly end: AbortController;
  readonly release: Promise<() => void>;
}

export interface PubsubRelayOptions extends Omit<UpstreamPoolOptions, 'fallback'> {
  /** The base chain's websocket. */
  readonly baseWsUrl: WsUrl;
  /** The delegation program: an account it owns is being delegated or undelegated. */
  readonly programId: string;
  /** ERs routing may not use remembered at most (each is warned of once while remembered). Default MAX_UNKNOWN_ERS. */
  readonly maxUnknownErs?: number;
  /** getAccountInfo on an upstream: how an accountSubscribe catches up after its socket reconnects. */
  readonly readAccount?: (upstream: Upstream) => AccountRead;
}

/**
 * Relays Solana's subscriptions to the upstreams' websockets, as MagicBlock's Rust router
 * relays accountSubscribe: every subscription on the base chain, and one that follows an
 * account (accountSubscribe, logsSubscribe of an account) also on the ER the account is
 * delegated to, for as long as it is; a programSubscribe also on the ERs that hold the
 * program's delegated accounts, passing from each only the accounts delegated to it. One
 * socket per upstream, one upstream subscription per distinct normalized request however
 * many clients hold it; the last one leaving unsubscribes it.
 */
export class PubsubRelay {
  /** Upstream sockets by upstream name (the base chain's, and each ER's while it relays something). */
  private readonly sockets = new Map<string, UpstreamPool>();
  private readonly held = new Map<string, Held>();
  /** Held subscriptions that follow an account, by account: what a delegation change moves. */
  private readonly byAccount = new Map<string, Set<Held>>();
  /** Held programSubscribes by program: what a new delegation of one of its accounts extends. */
  private readonly byProgram = new Map<string, Set<Held>>();
  private readonly watches = new Map<string, ProgramWatch>();
  /**
   * ERs routing may not use, warned of once each while remembered: bounded, since anyone can
   * delegate an account to an identity of their choosing and subscribe to it.
   */
  private readonly unknownErs: LRUCache<string, true>;
  private readonly stopListening: () => void;
  private readonly catchUp = new AccountCatchUp();
  private stopped = false;

  constructor(
    private readonly routing: Routing,
    private readonly programs: ProgramErLookup,
    private readonly options: PubsubRelayOptions,
    private readonly log: () => Logger | undefined,
  ) {
    this.unknownErs = new LRUCache({ max: options.maxUnknownErs ?? MAX_UNKNOWN_ERS });
    this.stopListening = routing.source.listen({
      changed: (account, record) => {
        for (const held of this.byAccount.get(account) ?? []) this.moveTo(held, record?.authority);
      },
      // Asked again so that a relayed account's record stays followed. Not when the cache's
      // bound evicted it: reading it again would evict another, and so on without end; its
      // subscriptions then stay where they are until the account's own notifications say otherwise.
      forgotten: (account, evicted) => {
        if (!evicted && this.byAccount.has(account)) setImmediate(() => this.route(account));
      },
      wants: (account) => this.byAccount.has(account),
    });
  }

  /** Distinct subscriptions relayed now (a program's delegation watch included). */
  get size(): number {
    return this.held.size;
  }

  /** ERs routing may not use that are remembered now (bounded by maxUnknownErs). */
  get unknownErsRemembered(): number {
    return this.unknownErs.size;
  }

  /** Upstream subscriptions held on the sockets of `upstream` (a name: base-chain, er:<identity>). */
  upstreamSubscriptions(upstream: string): number {
    return this.sockets.get(upstream)?.size ?? 0;
  }

  /** Sockets open to `upstream` (a name: base-chain, er:<identity>). */
  upstreamSockets(upstream: string): number {
    return this.sockets.get(upstream)?.socketCount ?? 0;
  }

  /**
   * One client's share of `relayed`. Resolves once the base chain acknowledged the
   * subscription (at once when it already has) with what releases the share (once; later
   * calls do nothing); rejects with the upstream's own error when it refuses it, or when
   * `signal` (the subscribe call's) aborts first.
   */
  hold(relayed: Relayed, holder: RelayHolder, signal: AbortSignal): Promise<() => void> {
    let held = this.held.get(relayed.key);
    if (held === undefined) {
      held = { ...relayed, clients: new Set(), ers: new Map(), acked: false };
      this.held.set(relayed.key, held);
      this.socketOf(this.routing.baseChain, this.options.baseWsUrl).subscribe(held.key, held.subscription);
      const { account, program } = relayed.follows ?? {};
      if (account !== undefined) {
        this.byAccount.set(account, (this.byAccount.get(account) ?? new Set()).add(held));
        this.route(account);
      }
      if (program !== undefined) this.followProgram(held, program);
    }
    // An object of its own: one holder given twice is two clients.
    const client: Client = { holder, waiting: undefined };
    held.clients.add(client);
    const h = held;
    const release = (): void => {
      client.waiting = undefined;
      if (!h.clients.delete(client) || h.clients.size > 0) return;
      this.drop(h);
    };
    if (h.acked) return Promise.resolve(release);
    return new Promise((resolve, reject) => {
      const gone = (): void => {
        release();
        reject(signal.reason);
      };
      if (signal.aborted) return gone();
      signal.addEventListener('abort', gone, { once: true });
      client.waiting = {
        acked: () => {
          signal.removeEventListener('abort', gone);
          resolve(release);
        },
        refused: (error) => {
          signal.removeEventListener('abort', gone);
          reject(error);
        },
      };
    });
  }

  stop(): void {
    this.stopped = true;
    this.stopListening();
    for (const s of this.sockets.values()) s.stop();
    this.sockets.clear();
    this.held.clear();
    this.byAccount.clear();
    this.byProgram.clear();
    this.watches.clear();
  }

  /** Ends `held` on every upstream it is subscribed on. */
  private drop(held: Held): void {
    if (this.held.get(held.key) !== held) return;
    this.held.delete(held.key);
    this.release(this.sockets.get(this.routing.baseChain.name), held.key);
    for (const socket of held.ers.keys()) this.release(socket, held.key);
    held.ers.clear();
    const { account, program } = held.follows ?? {};
    if (account !== undefined) leave(this.byAccount, account, held);
    if (program !== undefined && leave(this.byProgram, program, held)) this.unwatch(program);
  }

  private acked(socket: UpstreamPool, key: string): void {
    const held = this.held.get(key);
    if (held !== undefined) this.catchUpOn(socket, held);
    if (held === undefined || socket.name !== this.routing.baseChain.name || held.acked) return;
    held.acked = true;
    for (const client of held.clients) {
      const waiting = client.waiting;
      client.waiting = undefined;
      waiting?.acked();
    }
  }

  /**
   * An accountSubscribe acknowledged again after its socket reconnected: read, and notified
   * when the account changed meanwhile (account-catch-up.ts). Other subscriptions cannot be
   * replayed: what their upstream notified while down is lost.
   */
  private catchUpOn(socket: UpstreamPool, held: Held): void {
    const read = this.accountReadOn(socket, held);
    if (read === undefined) return;
    this.catchUp.acked(socket.name, held.key, held.subscription.params, read).then(
      (caught) => {
        if (caught !== undefined && this.held.get(held.key) === held) this.notified(socket, held.key, caught);
      },
      (err: unknown) =>
        this.log()?.warn(
          { upstream: socket.name, account: held.follows?.account, err },
          'a relayed account not read after its websocket reconnected: a change while it was down waits for the next one',
        ),
    );
  }

  /** A socket closed: its accountSubscribes are behind until acknowledged again. */
  private lost(socket: UpstreamPool, keys: readonly string[]): void {
    for (const key of keys) {
      const held = this.held.get(key);
      const read = held && this.accountReadOn(socket, held);
      if (read !== undefined) this.catchUp.lost(socket.name, key, held!.subscription.params, read);
    }
  }

  /** getAccountInfo on the upstream of `socket`, for an accountSubscribe it carries; else undefined. */
  private accountReadOn(socket: UpstreamPool, held: Held): AccountRead | undefined {
    const readAccount = this.options.readAccount;
    if (readAccount === undefined || held.subscription.subscribe !== 'accountSubscribe') return undefined;
    if (socket.name === this.routing.baseChain.name) return readAccount(this.routing.baseChain);
    const er = held.ers.get(socket);
    if (er === undefined) return undefined;
    try {
      return readAccount(this.routing.erOfIdentity(er));
    } catch {
      return undefined;
    }
  }

  /**
   * An upstream refused `key`: it ends for every client of it. A client still waiting for
   * its answer gets the upstream's error; one already answered would wait forever for
   * notifications that never come, so it is lost (its socket closed, saying why).
   */
  private refused(socket: UpstreamPool, key: string, error: unknown): void {
    const held = this.held.get(key);
    if (held === undefined || (socket.name !== this.routing.baseChain.name && !held.ers.has(socket))) return;
    this.drop(held);
    const answer = refusalOf(error);
    const reason = `${held.subscription.subscribe} no longer served: the upstream refused it when subscribed again`;
    for (const client of held.clients) {
      const waiting = client.waiting;
      client.waiting = undefined;
      if (waiting !== undefined) waiting.refused(answer);
      else client.holder.lose(reason);
    }
    held.clients.clear();
  }

  /** Reads where `account` is delegated (the cache, or the base chain) and moves its subscriptions there. */
  private route(account: string): void {
    if (this.stopped || !this.byAccount.has(account)) return;
    this.routing.source.watch(account).then(
      (record) => {
        for (const held of this.byAccount.get(account) ?? []) this.moveTo(held, record?.authority);
      },
      (err: unknown) =>
        this.log()?.warn(
          { account, err },
          'delegation of a relayed account unknown; notified from the base chain only',
        ),
    );
  }

  /** Subscribes `held` on the ER `authority` names (none: the base chain only), leaving the one it was on. */
  private moveTo(held: Held, authority: string | undefined): void {
    if (this.held.get(held.key) !== held) return;
    const socket = authority === undefined ? undefined : this.erSocket(authority);
    const [current] = held.ers.keys();
    if (socket === current) return;
    if (current !== undefined) {
      held.ers.delete(current);
      this.release(current, held.key);
    }
    if (socket !== undefined) this.subscribeOn(held, socket, authority!);
    this.log()?.debug(
      { account: held.follows?.account, upstream: socket?.name ?? this.routing.baseChain.name },
      'relayed subscription follows its account’s delegation',
    );
  }

  /**
   * A programSubscribe follows the ERs its program's records name now, and those of the
   * delegations the base chain notifies from now on (one watch per program, shared).
   */
  private followProgram(held: Held, program: string): void {
    const same = this.byProgram.get(program) ?? new Set();
    this.byProgram.set(program, same.add(held));
    if (!this.watches.has(program)) this.watch(program);
    void this.programs.ersOf(program).then((ers) => {
      if (this.held.get(held.key) !== held) return;
      if (ers.known) {
        for (const authority of ers.authorities) this.extend(held, authority);
        return;
      }
      this.log()?.warn(
        { program, reason: ers.reason },
        "a program's delegation records not read (past delegations.maxProgramRecords, or the base chain did not answer); its programSubscribe is relayed from every vetted ER",
      );
      for (const er of this.routing.ers.vetted()) this.extend(held, er.identity!);
    });
  }

  private watch(program: string): void {
    const end = new AbortController();
    const release = this.hold(
      {
        key: `delegations-of:${program}`,
        follows: undefined,
        subscription: this.programs.recordsSubscription(program),
        notified: 'context',
      },
      {
        deliver: (_result, value) => {
          const authority = this.programs.authorityIn(value);
          if (authority === undefined) return;
          for (const held of this.byProgram.get(program) ?? []) this.extend(held, authority);
        },
        lose: () => this.log()?.warn({ program }, "a program's new delegations are no longer followed"),
      },
      end.signal,
    );
    release.catch((err: unknown) => {
      if (!end.signal.aborted)
        this.log()?.warn({ program, err }, "a program's new delegations are not followed");
    });
    this.watches.set(program, { end, release });
  }

  private unwatch(program: string): void {
    const watch = this.watches.get(program);
    if (watch === undefined) return;
    this.watches.delete(program);
    watch.end.abort();
    watch.release.then(
      (release) => release(),
      () => undefined,
    );
  }

  /** Subscribes a programSubscribe on the ER `authority` names too, unless it already is. */
  private extend(held: Held, authority: string): void {
    if (this.held.get(held.key) !== held) return;
    const socket = this.erSocket(authority);
    if (socket !== undefined && !held.ers.has(socket)) this.subscribeOn(held, socket, authority);
  }

  private subscribeOn(held: Held, socket: UpstreamPool, authority: string): void {
    held.ers.set(socket, authority);
    socket.subscribe(held.key, held.subscription);
  }

  /** The socket of the ER `authority` names, when routing may use it. */
  private erSocket(authority: string): UpstreamPool | undefined {
    let er: Upstream;
    try {
      er = this.routing.erOfIdentity(authority);
    } catch {
      if (!this.unknownErs.has(authority)) {
        this.unknownErs.set(authority, true);
        this.log()?.warn(
          { identity: authority },
          'account delegated to an ER routing may not use (not listed, or not allowed); notified from the base chain only',
        );
      }
      return undefined;
    }
    return this.socketOf(er, deriveWsUrl(er.url));
  }

  /** Ends `key` on `socket`; an ER socket left with nothing to relay is closed. */
  private release(socket: UpstreamPool | undefined, key: string): void {
    if (socket === undefined) return;
    socket.unsubscribe(key);
    this.catchUp.forget(socket.name, key);
    if (socket.size === 0 && socket.name !== this.routing.baseChain.name) {
      socket.stop();
      this.sockets.delete(socket.name);
    }
  }

  private socketOf(upstream: Upstream, wsUrl: WsUrl): UpstreamPool {
    let socket = this.sockets.get(upstream.name);
    if (socket !== undefined) return socket;
    const { pingIntervalMs, reconnectMaxDelayMs, handshakeTimeoutMs, subscriptionsPerSocket } = this.options;
    socket = new UpstreamPool(
      upstream.name,
      wsUrl,
      {
        acked: (key) => this.acked(socket!, key),
        refused: (key, error) => this.refused(socket!, key, error),
        notified: (key, result) => this.notified(socket!, key, result),
        lost: (keys) => this.lost(socket!, keys),
      },
      {
        pingIntervalMs,
        reconnectMaxDelayMs,
        handshakeTimeoutMs,
        subscriptionsPerSocket,
        fallback: 'its notifications wait for it',
        addressGuard: upstream.addressGuard,
      },
      this.log,
    );
    this.sockets.set(upstream.name, socket);
    if (!this.stopped) socket.start();
    return socket;
  }

  private notified(socket: UpstreamPool, key: string, result: UpstreamResult): boolean {
    const held = this.held.get(key);
    const fromBase = socket.name === this.routing.baseChain.name;
    const er = fromBase ? undefined : held?.ers.get(socket);
    // From an ER it no longer follows: an answer in flight when it moved.
    if (held === undefined || (!fromBase && er === undefined)) return true;
    const value = result.value;
    if (!isShaped(held.notified, value)) {
      this.log()?.warn(
        { upstream: socket.name, method: held.subscription.notification },
        'upstream sent a notification of another shape; ignored',
      );
      return false;
    }
    const { account, program } = held.follows ?? {};
    // The account changed hands with the delegation program (the Rust router's cue): ask where it is now.
    if (account !== undefined && ownerOf(value) === this.options.programId) this.route(account);
    if (held.subscription.subscribe === 'accountSubscribe') this.catchUp.notified(socket.name, key, result);
    // The upstream's own text, serialized once for all: parsed values would change its u64 fields.
    const shared = new SerializedResult(result.json);
    if (program !== undefined && er !== undefined) this.deliverDelegated(held, er, value, shared);
    else for (const client of held.clients) client.holder.deliver(shared, value);
    return true;
  }

  /**
   * An ER's programNotification reaches the clients when its account is delegated to that
   * ER: an ER also holds copies of accounts that live on the base chain, which the base
   * chain notifies itself.
   */
  private deliverDelegated(held: Held, er: string, value: unknown, shared: SerializedResult): void {
    const pubkey = (value as { value?: { pubkey?: unknown } }).value?.pubkey;
    if (typeof pubkey !== 'string') return;
    this.routing.source.recordOf(pubkey).then(
      (record) => {
        if (record?.authority !== er || this.held.get(held.key) !== held) return;
        for (const client of held.clients) client.holder.deliver(shared, value);
      },
      (err: unknown) =>
        this.log()?.debug(
          { account: pubkey, err },
          "an ER's program notification dropped: its delegation unknown",
        ),
    );
  }
}

/** Removes `held` from `account`'s set; true when that emptied it. */
function leave(index: Map<string, Set<Held>>, name: string, held: Held): boolean {
  const same = index.get(name);
  same?.delete(held);
  if (same?.size !== 0) return false;
  index.delete(name);
  return true;
}

/** The upstream's error as the client's answer, when it is a JSON-RPC error object; else our own. */
function refusalOf(error: unknown): RpcError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown } | null | undefined;
  if (Number.isSafeInteger(e?.code) && typeof e?.message === 'string') {
    return new RpcError(e.code as number, e.message, e.data);
  }
  return new RpcError(ErrorCode.INTERNAL_ERROR, 'the upstream refused the subscription');
}

/** Whether a notification's result has the shape its subscription notifies. */
function isShaped(shape: NotifiedShape, result: unknown): boolean {
  if (shape === 'integer') return typeof result === 'number' && Number.isSafeInteger(result) && result >= 0;
  if (result === null || typeof result !== 'object') return false;
  if (shape === 'object') return true;
  const slot = (result as { context?: { slot?: unknown } | null }).context?.slot;
  return typeof slot === 'number' && Number.isSafeInteger(slot) && slot >= 0;
}

const ownerOf = (result: unknown): unknown => (result as { value?: { owner?: unknown } | null }).value?.owner;
