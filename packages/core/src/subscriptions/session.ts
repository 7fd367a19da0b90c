import type { Logger } from 'pino';
import type { CallContext } from '../call-context.js';
import { ErrorCode } from '../codes.js';
import { RpcError } from '../errors.js';
import type { AnySubscriptionDefinition, StopSubscription, SubscriptionSink } from './definition.js';
import { SerializedResult } from './serialized-result.js';

/** Where one connection's subscriptions write (its socket). */
export interface SubscriberChannel {
  /** Sends one message. */
  send(text: string): void;
  /** Sends one message made of `head` (bytes shared with other subscribers, never copied) then `tail`. */
  sendShared(head: Buffer, tail: string): void;
  /** Closes the connection with this close code and reason. */
  close(code: number, reason: string): void;
}

/** The close code of a connection whose subscription lost its source (RFC 6455: an unexpected condition). */
export const SUBSCRIPTION_LOST_CLOSE_CODE = 1011;

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
   * A table for one connection; `channel` writes to its peer. `client` is the peer's
   * address (trustProxy), whose connections share the per-client limit.
   */
  session(channel: SubscriberChannel, log: Logger, client?: string): SubscriptionSession {
    return new SubscriptionSession(this, channel, log, client);
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

/** A message held until the subscribe answer is out: a text, or a shared head and its tail. */
type Held = string | readonly [Buffer, string];

class Live implements SubscriptionSink<unknown> {
  stop: StopSubscription | undefined;
  ended = false;
  /** Messages sent before the subscribe call's answer: they follow it. Undefined once it is out. */
  held: Held[] | undefined = [];
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
    const message: Held =
      result instanceof SerializedResult
        ? [result.headOf(this.definition.notification), `,"subscription":${this.id}}}`]
        : `{"jsonrpc":"2.0","method":${JSON.stringify(this.definition.notification)},"params":{"result":${JSON.stringify(result) ?? 'null'},"subscription":${this.id}}}`;
    if (this.held !== undefined) this.held.push(message);
    else this.session.write(message);
  }

  end(): void {
    this.session.end(this);
  }

  lose(reason: string): void {
    this.session.lose(this, reason);
  }
}

/**
 * The subscriptions of one persistent connection. A subscription opens and starts within
 * its subscribe call; what it sends before the call's answer follows the answer
 * (`MessageSubscriptions.start`). It ends exactly once: by unsubscribe, by its plugin, or
 * with the connection (`closeAll`), which frees everything it held.
 */
export class SubscriptionSession {
  private readonly live = new Map<number, Live>();
  private closed = false;

  constructor(
    private readonly registry: SubscriptionRegistry,
    private readonly channel: SubscriberChannel,
    /** @internal */ readonly log: Logger,
    private readonly client: string | undefined,
  ) {}

  get size(): number {
    return this.live.size;
  }

  /**
   * The subscriptions opened by one message: what they send goes out once `start` is
   * called, after that message's answer is sent, whatever other messages of the connection do meanwhile.
   */
  message(): MessageSubscriptions {
    return new MessageSubscriptions(this);
  }

  /** @internal Opens a subscription for a subscribe call (counted against the limits), not started yet. */
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

  /**
   * @internal Starts `sub` within its subscribe call: its id once the definition's start
   * returned (or its promise resolved). A start that throws or rejects ends it, and that
   * error is the call's; a call that ends first (deadline, socket closed) ends it, and the
   * stop is called once the start resolves.
   */
  begin(sub: Live, ctx: CallContext): number | Promise<number> {
    let started: StopSubscription | Promise<StopSubscription>;
    try {
      started = sub.definition.start(sub.params as never, sub, ctx as CallContext<never>);
    } catch (err) {
      this.discard(sub);
      throw err;
    }
    if (!(started instanceof Promise)) {
      this.attach(sub, started);
      return sub.id;
    }
    const gone = (): void => this.discard(sub);
    ctx.signal.addEventListener('abort', gone, { once: true });
    return started.then(
      (stop) => {
        ctx.signal.removeEventListener('abort', gone);
        this.attach(sub, stop);
        return sub.id;
      },
      (err: unknown) => {
        ctx.signal.removeEventListener('abort', gone);
        this.discard(sub);
        throw err;
      },
    );
  }

  /** Ends subscription `id` of this kind; false when this connection has none such. */
  unsubscribe(id: number, definition: AnySubscriptionDefinition): boolean {
    const sub = this.live.get(id);
    if (sub === undefined || sub.definition !== definition) return false;
    this.end(sub);
    return true;
  }

  /** @internal The subscribe answers of `answered` were sent: what they held follows. */
  answered(answered: readonly Live[]): void {
    for (const sub of answered) {
      const held = sub.held;
      sub.held = undefined;
      for (const message of held ?? []) this.write(message);
    }
  }

  /** @internal */
  write(message: Held): void {
    if (typeof message === 'string') this.channel.send(message);
    else this.channel.sendShared(message[0], message[1]);
  }

  /** The connection is gone: every subscription ends and nothing more is sent. */
  closeAll(): void {
    this.closed = true;
    for (const sub of [...this.live.values()]) this.end(sub);
  }

  /** @internal The subscription's source is gone for good: its connection is closed, saying why. */
  lose(sub: Live, reason: string): void {
    if (sub.ended) return;
    sub.log.warn({ reason }, 'subscription lost its source; closing its connection');
    this.end(sub);
    this.channel.close(SUBSCRIPTION_LOST_CLOSE_CODE, reason);
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

  /** Its subscribe call failed or ended unanswered: nothing it held is sent. */
  private discard(sub: Live): void {
    sub.held = undefined;
    if (!sub.ended) this.end(sub);
  }

  private attach(sub: Live, stop: StopSubscription): void {
    // Ended meanwhile (sink.end() at once, the call's end, the socket's): stopped now.
    if (!sub.ended) {
      sub.stop = stop;
      return;
    }
    try {
      stop();
    } catch (err) {
      sub.log.error({ err }, 'subscription failed to stop');
    }
  }
}

/** What a subscribe or unsubscribe call sees of its connection (MessageScope.session). */
export interface SubscriptionHost {
  /** Opens and starts a subscription; its id once started (what it sends follows the call's answer). */
  open(definition: AnySubscriptionDefinition, params: unknown, ctx: CallContext): number | Promise<number>;
  /** Ends subscription `id` of this kind; false when the connection holds none such. */
  unsubscribe(id: number, definition: AnySubscriptionDefinition): boolean;
}

/** The subscriptions one message opened: what they send goes out after its answer. */
export class MessageSubscriptions implements SubscriptionHost {
  private opened: Live[] | undefined;

  constructor(private readonly session: SubscriptionSession) {}

  open(definition: AnySubscriptionDefinition, params: unknown, ctx: CallContext): number | Promise<number> {
    const sub = this.session.open(definition, params);
    (this.opened ??= []).push(sub);
    return this.session.begin(sub, ctx);
  }

  unsubscribe(id: number, definition: AnySubscriptionDefinition): boolean {
    return this.session.unsubscribe(id, definition);
  }

  /** Call once the message's answer is sent (or when none was owed). */
  start(): void {
    if (this.opened === undefined) return;
    const opened = this.opened;
    this.opened = undefined;
    this.session.answered(opened);
  }
}
