import type { PluginContext } from '@rollup-router/core';
import { deriveWsUrl } from '@rollup-router/core/internal';
import {
  UpstreamSocket,
  type UpstreamSocketOptions,
  type UpstreamSubscription,
} from '@rollup-router/core/upstream-socket';
import type { DelegationRecord } from '../delegation/record-codec.js';
import type { Routing } from '../routing.js';
import type { Upstream } from '../upstream/upstream.js';

type Logger = PluginContext['log'];

/** Where a relayed subscription's notifications go: one callback per client subscription. */
export type Deliver = (result: unknown) => void;

interface Held {
  readonly key: string;
  /** The account an accountSubscribe follows (undefined for slotSubscribe: base chain only). */
  readonly account: string | undefined;
  readonly subscription: UpstreamSubscription;
  readonly clients: Set<Deliver>;
  /** The ER socket it is subscribed on too, while its account is delegated there. */
  er: UpstreamSocket | undefined;
}

export interface PubsubRelayOptions extends Omit<UpstreamSocketOptions, 'fallback'> {
  /** The base chain's websocket. */
  readonly baseWsUrl: string;
  /** The delegation program: an account it owns is being delegated or undelegated. */
  readonly programId: string;
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
  private readonly sockets = new Map<string, UpstreamSocket>();
  private readonly held = new Map<string, Held>();
  /** Held accountSubscribe subscriptions by account: what a delegation change moves. */
  private readonly byAccount = new Map<string, Set<Held>>();
  /** ERs the route table does not list, warned of once each. */
  private readonly unknownErs = new Set<string>();
  private readonly stopListening: () => void;
  private stopped = false;

  constructor(
    private readonly routing: Routing,
    private readonly options: PubsubRelayOptions,
    private readonly log: () => Logger | undefined,
  ) {
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

  /** Upstream subscriptions held on the socket of `upstream` (a name: base-chain, er:<identity>). */
  upstreamSubscriptions(upstream: string): number {
    return this.sockets.get(upstream)?.size ?? 0;
  }

  /**
   * One client's share of the subscription `key`; `account` names the account an
   * accountSubscribe follows. Returns what releases it (once; later calls do nothing).
   */
  hold(
    key: string,
    account: string | undefined,
    subscription: UpstreamSubscription,
    deliver: Deliver,
  ): () => void {
    let held = this.held.get(key);
    if (held === undefined) {
      held = { key, account, subscription, clients: new Set(), er: undefined };
      this.held.set(key, held);
      this.socketOf(this.routing.baseChain, this.options.baseWsUrl).subscribe(key, subscription);
      if (account !== undefined) {
        const same = this.byAccount.get(account) ?? new Set();
        this.byAccount.set(account, same.add(held));
        this.route(account);
      }
    }
    // A function of its own: one callback held twice is two clients.
    const client: Deliver = (result) => deliver(result);
    held.clients.add(client);
    const h = held;
    return () => {
      if (!h.clients.delete(client) || h.clients.size > 0 || this.held.get(key) !== h) return;
      this.held.delete(key);
      this.release(this.sockets.get(this.routing.baseChain.name), key);
      this.release(h.er, key);
      if (h.account === undefined) return;
      const same = this.byAccount.get(h.account);
      same?.delete(h);
      if (same?.size === 0) this.byAccount.delete(h.account);
    };
  }

  stop(): void {
    this.stopped = true;
    this.stopListening();
    for (const s of this.sockets.values()) s.stop();
    this.sockets.clear();
    this.held.clear();
    this.byAccount.clear();
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
        this.unknownErs.add(record.authority);
        this.log()?.warn(
          { identity: record.authority },
          'account delegated to an ER the route table does not list; notified from the base chain only',
        );
      }
      return undefined;
    }
  }

  /** Ends `key` on `socket`; an ER socket left with nothing to relay is closed. */
  private release(socket: UpstreamSocket | undefined, key: string): void {
    if (socket === undefined) return;
    socket.unsubscribe(key);
    if (socket.size === 0 && socket.name !== this.routing.baseChain.name) {
      socket.stop();
      this.sockets.delete(socket.name);
    }
  }

  private socketOf(upstream: Upstream, wsUrl: string): UpstreamSocket {
    let socket = this.sockets.get(upstream.name);
    if (socket !== undefined) return socket;
    const { pingIntervalMs, reconnectMaxDelayMs, handshakeTimeoutMs } = this.options;
    socket = new UpstreamSocket(
      upstream.name,
      wsUrl,
      {
        acked: () => undefined,
        notified: (key, result) => this.notified(socket!, key, result),
      },
      {
        pingIntervalMs,
        reconnectMaxDelayMs,
        handshakeTimeoutMs,
        fallback: 'its notifications wait for it',
        addressGuard: upstream.addressGuard,
      },
      this.log,
    );
    this.sockets.set(upstream.name, socket);
    if (!this.stopped) socket.start();
    return socket;
  }

  private notified(socket: UpstreamSocket, key: string, result: unknown): boolean {
    const held = this.held.get(key);
    // From an ER it no longer follows: an answer in flight when it moved.
    if (held === undefined || (socket.name !== this.routing.baseChain.name && socket !== held.er))
      return true;
    if (!isNotification(result)) {
      this.log()?.warn(
        { upstream: socket.name, method: held.subscription.notification },
        'upstream sent a notification of another shape; ignored',
      );
      return false;
    }
    // The account changed hands with the delegation program (the Rust router's cue): ask where it is now.
    if (held.account !== undefined && ownerOf(result) === this.options.programId) this.route(held.account);
    for (const client of held.clients) client(result);
    return true;
  }
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
