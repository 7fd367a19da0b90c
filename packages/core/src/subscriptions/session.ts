import type { Logger } from 'pino';
import { ErrorCode } from '../codes.js';
import { RpcError } from '../errors.js';
import type { AnySubscriptionDefinition, SubscriptionSink } from './definition.js';

export interface SubscriptionLimits {
  /** Most live subscriptions on one connection. */
  readonly perConnection: number;
  /** Most live subscriptions of one client address across its connections (default: no limit but `total`). */
  readonly perClient?: number;
  /** Most live subscriptions on the whole service. */
  readonly total: number;
}

/** What every connection's subscriptions share: the id counter, the totals and their limits. */
export class SubscriptionRegistry {
  /** Ids increase across the service, as a Solana validator's do: an old id is never reused. */
  private nextId = 1;
  private live = 0;
  /** Live subscriptions per client address; an address holding none has no entry. */
  private readonly perClient = new Map<string, number>();

  constructor(readonly limits: SubscriptionLimits) {}

  /** Live subscriptions on every connection. */
  get active(): number {
    return this.live;
  }

  /** Live subscriptions of one client address, on all its connections. */
  activeOf(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /**
   * A table for one connection; `send` writes one message to its peer. `client` is the
   * peer's address (trustProxy), whose connections share the per-client limit.
   */
  session(send: (text: string) => void, log: Logger, client?: string): SubscriptionSession {
    return new SubscriptionSession(this, send, log, client);
  }

  /** @internal */
  take(client: string | undefined): number {
    const { perClient = Infinity, total } = this.limits;
    const held = client === undefined ? 0 : this.activeOf(client);
    if (held >= perClient) {
      throw RpcError.of(ErrorCode.TOO_MANY_SUBSCRIPTIONS, { limit: perClient, per: 'client' });
    }
    if (this.live >= total) {
      throw RpcError.of(ErrorCode.TOO_MANY_SUBSCRIPTIONS, { limit: total, per: 'server' });
    }
    if (client !== undefined) this.perClient.set(client, held + 1);
    this.live += 1;
    return this.nextId++;
  }

  /** @internal */
  release(client: string | undefined): void {
    this.live -= 1;
    if (client === undefined) return;
    const left = this.activeOf(client) - 1;
    if (left <= 0) this.perClient.delete(client);
    else this.perClient.set(client, left);
  }
}

class Live implements SubscriptionSink<unknown> {
  stop: (() => void) | undefined;
  ended = false;
  private childLog: Logger | undefined;

  constructor(
    readonly id: number,
    readonly definition: AnySubscriptionDefinition,
    readonly params: unknown,
    private readonly session: SubscriptionSession,
  ) {}

  get log(): Logger {
    return (this.childLog ??= this.session.log.child({
      subscription: this.id,
      method: this.definition.subscribe,
    }));
  }

  notify(result: unknown): void {
    if (this.ended) return;
    const method = JSON.stringify(this.definition.notification);
    const text = `{"jsonrpc":"2.0","method":${method},"params":{"result":${JSON.stringify(result) ?? 'null'},"subscription":${this.id}}}`;
    this.session.send(text);
  }

  end(): void {
    this.session.end(this);
  }
}

/**
 * The subscriptions of one persistent connection. A subscription opens within its
 * subscribe call, starts once the transport has sent that call's answer
 * (`MessageSubscriptions.start`), and ends exactly once: by unsubscribe, by its plugin, or with the
 * connection (`closeAll`), which frees everything it held.
 */
export class SubscriptionSession {
  private readonly live = new Map<number, Live>();
  private closed = false;

  constructor(
    private readonly registry: SubscriptionRegistry,
    /** @internal */ readonly send: (text: string) => void,
    /** @internal */ readonly log: Logger,
    private readonly client: string | undefined,
  ) {}

  get size(): number {
    return this.live.size;
  }

  /**
   * The subscriptions opened by one message: they start when `start` is called, after
   * that message's answer is sent, whatever other messages of the connection do meanwhile.
   */
  message(): MessageSubscriptions {
    return new MessageSubscriptions(this);
  }

  /** @internal Opens a subscription for a subscribe call, not started yet. */
  open(definition: AnySubscriptionDefinition, params: unknown): Live {
    if (this.closed) throw RpcError.of(ErrorCode.SHUTTING_DOWN);
    const limit = this.registry.limits.perConnection;
    if (this.live.size >= limit) {
      throw RpcError.of(ErrorCode.TOO_MANY_SUBSCRIPTIONS, { limit, per: 'connection' });
    }
    const sub = new Live(this.registry.take(this.client), definition, params, this);
    this.live.set(sub.id, sub);
    return sub;
  }

  /** Ends subscription `id` of this kind; false when this connection has none such. */
  unsubscribe(id: number, definition: AnySubscriptionDefinition): boolean {
    const sub = this.live.get(id);
    if (sub === undefined || sub.definition !== definition) return false;
    this.end(sub);
    return true;
  }

  /** @internal Starts subscriptions whose subscribe answer was sent. */
  start(starting: readonly Live[]): void {
    for (const sub of starting) {
      if (sub.ended) continue;
      try {
        const stop = sub.definition.start(sub.params as never, sub);
        // It may have ended itself at once (a status already known).
        if (sub.ended) stop();
        else sub.stop = stop;
      } catch (err) {
        sub.log.error({ err }, 'subscription failed to start');
        this.end(sub);
      }
    }
  }

  /** The connection is gone: every subscription ends and nothing more is sent. */
  closeAll(): void {
    this.closed = true;
    for (const sub of [...this.live.values()]) this.end(sub);
  }

  /** @internal */
  end(sub: Live): void {
    if (sub.ended) return;
    sub.ended = true;
    this.live.delete(sub.id);
    this.registry.release(this.client);
    const stop = sub.stop;
    sub.stop = undefined;
    if (stop === undefined) return;
    try {
      stop();
    } catch (err) {
      sub.log.error({ err }, 'subscription failed to stop');
    }
  }
}

/** What a subscribe or unsubscribe call sees of its connection (CallScope.session). */
export interface SubscriptionHost {
  /** Opens a subscription; it starts once the call's answer is sent. Returns its id. */
  open(definition: AnySubscriptionDefinition, params: unknown): number;
  /** Ends subscription `id` of this kind; false when the connection holds none such. */
  unsubscribe(id: number, definition: AnySubscriptionDefinition): boolean;
}

/** The subscriptions one message opened, started together after its answer. */
export class MessageSubscriptions implements SubscriptionHost {
  private opened: Live[] | undefined;

  constructor(private readonly session: SubscriptionSession) {}

  open(definition: AnySubscriptionDefinition, params: unknown): number {
    const sub = this.session.open(definition, params);
    (this.opened ??= []).push(sub);
    return sub.id;
  }

  unsubscribe(id: number, definition: AnySubscriptionDefinition): boolean {
    return this.session.unsubscribe(id, definition);
  }

  /** Call once the message's answer is sent (or when none was owed). */
  start(): void {
    if (this.opened === undefined) return;
    const opened = this.opened;
    this.opened = undefined;
    this.session.start(opened);
  }
}
