import type { Logger } from 'pino';
import type { ApiKeys, KeyAccount } from './api-keys.js';
import type { CallContext } from './call-context.js';
import type { ClientAddressOf } from './client-address.js';
import type { Guard } from './guard.js';
import { emitGuarded } from './observers.js';
import type { PerMethod } from './per-method.js';
import type { RateLimit } from './rate-limit.js';

/** Why a request or message is refused before it is read: a name of the one status table (http-status.ts). */
export interface Refusal {
  readonly why: 'SHUTTING_DOWN' | 'RATE_LIMITED' | 'UNAUTHORIZED';
  /** Set when `why` is RATE_LIMITED: seconds until the budget allows one more point. */
  readonly retryAfterSeconds?: number;
}

/** The decision on one request or message: undefined admits it. */
export type Verdict = Refusal | undefined;

/** What a request presents for the API-key rule: the Authorization header and the query string (`api-key=`). */
export interface Credentials {
  readonly authorization: string | undefined;
  readonly query: string;
}

/**
 * A charge to a named API key (its budget, or its client address's when it has none): what
 * metrics count per customer. Charges to addresses and to plain keys are not reported.
 */
export interface KeyCharge {
  /** The key's name; never the key. */
  readonly key: string;
  readonly points: number;
  /** The budget was spent: the request or message was refused. */
  readonly refused: boolean;
}

/** Who pays for a request or a connection's messages: its client address, or the configured key it presented when that key has a budget of its own (`keyOf`). */
export interface Payer {
  readonly address: string;
  readonly key: KeyAccount | undefined;
}

const SHUTTING_DOWN: Refusal = { why: 'SHUTTING_DOWN' };
const UNAUTHORIZED: Refusal = { why: 'UNAUTHORIZED' };

/**
 * Admits or refuses every request and message, whatever the transport (an HTTP request, a
 * WebSocket upgrade, a message on an open socket), by the same rules in the same order,
 * before its body is read or parsed, so garbage and wrong keys are never free:
 *
 * 1. draining: refused (SHUTTING_DOWN);
 * 2. rate limit: one point of its payer's budget (RATE_LIMITED past it). The payer is the
 *    API key presented when it is a configured key with a budget of its own (`keyOf`),
 *    else the client address: a wrong key is charged to the address;
 * 3. API key, for every request when keys are configured (UNAUTHORIZED): checked after the
 *    charge, so guessing keys spends the guesser's budget.
 *
 * The client address is `clientAddress` (trustProxy). Once a body is parsed, the rest of
 * what its calls cost (perMethod) is charged by `chargeCalls` to the same payer. Without a
 * rate limit nothing here waits: the verdict is returned as a value, not a promise.
 *
 * Then, per call (each call of a batch), the call-level stage: the guards (`admitCall`),
 * the service's then the method's plugin's then the method's own. The two stages are one
 * step with one order, split where the body is read: the rules above are the transport's
 * and run on bytes nobody has parsed (so that garbage, wrong keys and floods pay before
 * any parsing), guards need a parsed call (its method, its params) and the host's context.
 */
export class Admission {
  private draining = false;
  private readonly guards: Guard[] = [];

  constructor(
    /** The client's address from the socket's peer and X-Forwarded-For, as trustProxy says. */
    readonly clientAddress: ClientAddressOf,
    private readonly rateLimit: RateLimit | undefined,
    private readonly apiKeys: ApiKeys,
    private readonly perMethod: PerMethod,
    private readonly log: Logger,
  ) {}

  /** Told of every charge to a named key (metrics per customer). */
  private readonly keyChargeListeners: ((charge: KeyCharge) => void)[] = [];

  onKeyCharge(listener: (charge: KeyCharge) => void): void {
    this.keyChargeListeners.push(listener);
  }

  /** Refuses everything from now on (graceful shutdown). */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * The configured key a request presents, or undefined (none, or a wrong one). Its
   * budget, when it has one, pays for the request and, over WebSocket, for every message
   * of the connection it opens.
   */
  keyOf({ authorization, query }: Credentials): KeyAccount | undefined {
    return this.apiKeys.enabled ? this.apiKeys.accountOf(authorization, query) : undefined;
  }

  /** An HTTP request or a WebSocket upgrade: drain, one point of its payer's budget, then its key (from `keyOf`). */
  admitRequest(client: string, key: KeyAccount | undefined): Verdict | Promise<Verdict> {
    if (this.draining) return SHUTTING_DOWN;
    const keyRule = this.apiKeys.enabled && key === undefined ? UNAUTHORIZED : undefined;
    const charged = this.spend(client, key, 1);
    if (charged === undefined) return keyRule;
    return charged instanceof Promise ? charged.then((refused) => refused ?? keyRule) : charged;
  }

  /**
   * A message on a connection admitted at its upgrade (its key was checked then): drain,
   * then one point of its payer's budget: `key`'s own, else `client`'s. Without a client
   * (an embedder's own transport) and without a key budget, no budget applies.
   */
  admitMessage(client: string | undefined, key?: KeyAccount): Verdict | Promise<Verdict> {
    return this.draining ? SHUTTING_DOWN : this.spend(client, key, 1);
  }

  /**
   * The rest of a parsed body's price, to the payer of its first point: what its calls
   * cost (perMethod; one point each by default), the first point paid on admission. An
   * admitted message is not refused for draining since: calls under way finish.
   */
  chargeCalls(
    client: string | undefined,
    key: KeyAccount | undefined,
    body: unknown,
  ): Verdict | Promise<Verdict> {
    const more = this.perMethod.pointsFor(body) - 1;
    return more > 0 ? this.spend(client, key, more) : undefined;
  }

  /** Adds a guard every call passes, in the order added (Rpc.guard). */
  addGuard(guard: Guard): void {
    this.guards.push(guard);
  }

  /**
   * One call's guards: the service's, then `own` (its plugin's, then its method's). A
   * refusal is the guard's throw; returns a promise only when a guard does.
   */
  admitCall(ctx: CallContext, params: unknown, own: readonly Guard[]): void | Promise<void> {
    const { guards } = this;
    if (guards.length === 0 && own.length === 0) return;
    return runGuards(guards, 0, own, ctx, params);
  }

  /** Charges `points` to the key's own budget when it has one, else to the client address's. */
  private spend(
    client: string | undefined,
    key: KeyAccount | undefined,
    points: number,
  ): Verdict | Promise<Verdict> {
    const ownBudget = key?.budget;
    const limit = ownBudget ?? this.rateLimit;
    const payer = ownBudget === undefined ? client : key!.name;
    if (limit === undefined || payer === undefined) {
      if (key?.name !== undefined) this.reportKeyCharge(key.name, points, false);
      return undefined;
    }
    return limit.retryAfter(payer, points, this.log).then((retryAfterSeconds) => {
      if (key?.name !== undefined) this.reportKeyCharge(key.name, points, retryAfterSeconds !== undefined);
      return retryAfterSeconds === undefined ? undefined : { why: 'RATE_LIMITED', retryAfterSeconds };
    });
  }

  private reportKeyCharge(key: string, points: number, refused: boolean): void {
    if (this.keyChargeListeners.length === 0) return;
    emitGuarded(this.keyChargeListeners, { key, points, refused }, this.log, 'onKeyCharge');
  }
}

/** What a refusal's JSON-RPC error carries in `data`: when to come back, for a rate limit. */
export function refusalData(refusal: Refusal): { retryAfterSeconds: number } | undefined {
  return refusal.retryAfterSeconds === undefined
    ? undefined
    : { retryAfterSeconds: refusal.retryAfterSeconds };
}

/** Runs `first[at..]` then `then`, synchronously until a guard returns a promise. */
function runGuards(
  first: readonly Guard[],
  at: number,
  then: readonly Guard[],
  ctx: CallContext,
  params: unknown,
): void | Promise<void> {
  for (let i = at; i < first.length; i++) {
    const out = first[i]!(ctx, params);
    if (out instanceof Promise) return out.then(() => runGuards(first, i + 1, then, ctx, params));
  }
  return then.length === 0 ? undefined : runGuards(then, 0, [], ctx, params);
}

/** What the dispatcher asks of the admission step: the call-level stage. */
export type CallAdmission = Pick<Admission, 'admitCall'>;
