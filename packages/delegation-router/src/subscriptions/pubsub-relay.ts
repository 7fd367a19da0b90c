import { ErrorCode, RpcError, SerializedResult, type PluginContext } from '@rollup-router/core';
import { deriveWsUrl } from '@rollup-router/core/internal';
import { UpstreamPool, type UpstreamPoolOptions } from '@rollup-router/core/upstream-pool';
import type { UpstreamResult, UpstreamSubscription } from '@rollup-router/core/upstream-socket';
import { LRUCache } from 'lru-cache';
import type { DelegationRecord } from '../delegation/record-codec.js';
import type { Routing } from '../routing.js';
import type { Upstream } from '../upstream/upstream.js';

/** ERs routing may not use remembered by default, so as to warn once each. */
export const MAX_UNKNOWN_ERS = 1000;

type Logger = PluginContext['log'];

/** One client subscription's end of a relayed subscription. */
export interface RelayHolder {
  /** A notification, serialized once for every client of it (the upstream's own result text). */
  deliver(result: SerializedResult): void;
  /** An upstream no longer serves it (it refused it when subscribed again): the client's end, saying why. */
  lose(reason: string): void;
}

interface Client {
  readonly holder: RelayHolder;
  /** Its subscribe call, while it waits for the base chain's acknowledgement. */
  waiting: { readonly acked: () => void; readonly refused: (error: RpcError) => void } | undefined;
}

interface Held {
  readonly key: string;
  /** The account an accountSubscribe follows (undefined for slotSubscribe: base chain only). */
  readonly account: string | undefined;
  readonly subscription: UpstreamSubscription;
  readonly clients: Set<Client>;
  /** The ER socket it is subscribed on too, while its account is delegated there. */
  er: UpstreamPool | undefined;
  /** Whether the base chain acknowledged it: a new client is answered at once. */
  acked: boolean;
}

export interface PubsubRelayOptions extends Omit<UpstreamPoolOptions, 'fallback'> {
  /** The base chain's websocket. */
  readonly baseWsUrl: string;
  /** The delegation program: an account it owns is being delegated or undelegated. */
  readonly programId: string;
  /** ERs routing may not use remembered at most (each is warned of once while remembered). Default MAX_UNKNOWN_ERS. */
  readonly maxUnknownErs?: number;
}

/**
 * Relays accountSubscribe and slotSubscribe to the upstreams' websockets, as MagicBlock's
 * Rust router does: every subscription on the base chain, and an accountSubscribe also on
 * the ER its account is delegated to, for as long as it is; notifications of both reach
 * the client. One socket per upstream, one upstream subscription per distinct (method,
 * account, config) however many clients hold it; the last one leaving unsubscribes it.
 */
export class PubsubRelay {
  /** Upstream sockets by upstream name (the base chain's, and each ER's while it relays something). */
  private readonly sockets = new Map<string, UpstreamPool>();
  private readonly held = new Map<string, Held>();
  /** Held accountSubscribe subscriptions by account: what a delegation change moves. */
  private readonly byAccount = new Map<string, Set<Held>>();
  /**
   * ERs routing may not use, warned of once each while remembered: bounded, since anyone can
   * delegate an account to an identity of their choosing and subscribe to it.
   */
  private readonly unknownErs: LRUCache<string, true>;
  private readonly stopListening: () => void;
  private stopped = false;

  constructor(
    private readonly routing: Routing,
    private readonly options: PubsubRelayOptions,
    private readonly log: () => Logger | undefined,
  ) {
    this.unknownErs = new LRUCache({ max: options.maxUnknownErs ?? MAX_UNKNOWN_ERS });
    this.stopListening = routing.source.listen({
      changed: (account, record) => {
        for (const held of this.byAccount.get(account) ?? []) this.moveTo(held, record);
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

  /** Distinct subscriptions relayed now. */
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
   * One client's share of the subscription `key`; `account` names the account an
   * accountSubscribe follows. Resolves once the base chain acknowledged the subscription
   * (at once when it already has) with what releases the share (once; later calls do
   * nothing); rejects with the upstream's own error when it refuses it, or when `signal`
   * (the subscribe call's) aborts first.
   */
  hold(
    key: string,
    account: string | undefined,
    subscription: UpstreamSubscription,
    holder: RelayHolder,
    signal: AbortSignal,
  ): Promise<() => void> {
    let held = this.held.get(key);
    if (held === undefined) {
      held = { key, account, subscription, clients: new Set(), er: undefined, acked: false };
      this.held.set(key, held);
      this.socketOf(this.routing.baseChain, this.options.baseWsUrl).subscribe(key, subscription);
      if (account !== undefined) {
        const same = this.byAccount.get(account) ?? new Set();
        this.byAccount.set(account, same.add(held));
        this.route(account);
      }
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
  }

  /** Ends `held` on every upstream it is subscribed on. */
  private drop(held: Held): void {
    if (this.held.get(held.key) !== held) return;
    this.held.delete(held.key);
    this.release(this.sockets.get(this.routing.baseChain.name), held.key);
    this.release(held.er, held.key);
    if (held.account === undefined) return;
    const same = this.byAccount.get(held.account);
    same?.delete(held);
    if (same?.size === 0) this.byAccount.delete(held.account);
  }

  private acked(socket: UpstreamPool, key: string): void {
    const held = this.held.get(key);
    if (held === undefined || socket.name !== this.routing.baseChain.name || held.acked) return;
    held.acked = true;
    for (const client of held.clients) {
      const waiting = client.waiting;
      client.waiting = undefined;
      waiting?.acked();
    }
  }

  /**
   * An upstream refused `key`: it ends for every client of it. A client still waiting for
   * its answer gets the upstream's error; one already answered would wait forever for
   * notifications that never come, so it is lost (its socket closed, saying why).
   */
  private refused(socket: UpstreamPool, key: string, error: unknown): void {
    const held = this.held.get(key);
    if (held === undefined || (socket.name !== this.routing.baseChain.name && socket !== held.er)) return;
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
        for (const held of this.byAccount.get(account) ?? []) this.moveTo(held, record);
      },
      (err: unknown) =>
        this.log()?.warn(
          { account, err },
          'delegation of a relayed account unknown; notified from the base chain only',
        ),
    );
  }

  /** Subscribes `held` on the ER `record` names (none: the base chain only), leaving the one it was on. */
  private moveTo(held: Held, record: DelegationRecord | null): void {
    if (this.held.get(held.key) !== held) return;
    const er = record === null ? undefined : this.erOf(record);
    const socket = er && this.socketOf(er, deriveWsUrl(er.url));
    if (socket === held.er) return;
    this.release(held.er, held.key);
    held.er = socket;
    socket?.subscribe(held.key, held.subscription);
    this.log()?.debug(
      { account: held.account, upstream: er?.name ?? this.routing.baseChain.name },
      'relayed account subscription follows its delegation',
    );
  }

  private erOf(record: DelegationRecord): Upstream | undefined {
    try {
      return this.routing.erOfRecord(record);
    } catch {
      if (!this.unknownErs.has(record.authority)) {
        this.unknownErs.set(record.authority, true);
        this.log()?.warn(
          { identity: record.authority },
          'account delegated to an ER routing may not use (not listed, or not allowed); notified from the base chain only',
        );
      }
      return undefined;
    }
  }

  /** Ends `key` on `socket`; an ER socket left with nothing to relay is closed. */
  private release(socket: UpstreamPool | undefined, key: string): void {
    if (socket === undefined) return;
    socket.unsubscribe(key);
    if (socket.size === 0 && socket.name !== this.routing.baseChain.name) {
      socket.stop();
      this.sockets.delete(socket.name);
    }
  }

  private socketOf(upstream: Upstream, wsUrl: string): UpstreamPool {
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
    // From an ER it no longer follows: an answer in flight when it moved.
    if (held === undefined || (socket.name !== this.routing.baseChain.name && socket !== held.er))
      return true;
    const value = result.value;
    if (!isNotification(value)) {
      this.log()?.warn(
        { upstream: socket.name, method: held.subscription.notification },
        'upstream sent a notification of another shape; ignored',
      );
      return false;
    }
    // The account changed hands with the delegation program (the Rust router's cue): ask where it is now.
    if (held.account !== undefined && ownerOf(value) === this.options.programId) this.route(held.account);
    // The upstream's own text, serialized once for all: parsed values would change its u64 fields.
    const shared = new SerializedResult(result.json);
    for (const client of held.clients) client.holder.deliver(shared);
    return true;
  }
}

/** The upstream's error as the client's answer, when it is a JSON-RPC error object; else our own. */
function refusalOf(error: unknown): RpcError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown } | null | undefined;
  if (Number.isSafeInteger(e?.code) && typeof e?.message === 'string') {
    return new RpcError(e.code as number, e.message, e.data);
  }
  return new RpcError(ErrorCode.INTERNAL_ERROR, 'the upstream refused the subscription');
}

/** Solana's notification results: an object (accountNotification's carries context.slot). */
function isNotification(result: unknown): result is object {
  if (result === null || typeof result !== 'object') return false;
  const context = (result as { context?: unknown }).context;
  if (context === undefined) return true;
  const slot = (context as { slot?: unknown } | null)?.slot;
  return typeof slot === 'number' && Number.isSafeInteger(slot) && slot >= 0;
}

const ownerOf = (result: object): unknown => (result as { value?: { owner?: unknown } | null }).value?.owner;
