import type { Logger } from 'pino';
import type { ApiKeys } from './api-keys.js';
import type { CallContext } from './call-context.js';
import type { ClientAddressOf } from './client-address.js';
import type { Guard } from './guard.js';
import { RateLimit } from './rate-limit.js';

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

const SHUTTING_DOWN: Refusal = { why: 'SHUTTING_DOWN' };
const UNAUTHORIZED: Refusal = { why: 'UNAUTHORIZED' };

/**
 * Admits or refuses every request and message, whatever the transport (an HTTP request, a
 * WebSocket upgrade, a message on an open socket), by the same rules in the same order,
 * before its body is read or parsed, so garbage and wrong keys are never free:
 *
 * 1. draining: refused (SHUTTING_DOWN);
 * 2. rate limit: one point of the client address's budget (RATE_LIMITED past it);
 * 3. API key, for requests that present credentials (UNAUTHORIZED): checked after the
 *    charge, so guessing keys spends the guesser's budget.
 *
 * The client address is `clientAddress` (trustProxy). Once a body is parsed, a batch's
 * other calls are charged by `chargeCalls`. Without a rate limit nothing here waits: the
 * verdict is returned as a value, not a promise.
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
    private readonly log: Logger,
  ) {}

  /** Refuses everything from now on (graceful shutdown). */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** An HTTP request or a WebSocket upgrade: drain, one point of `client`'s budget, then its key. */
  admitRequest(client: string, credentials: Credentials): Verdict | Promise<Verdict> {
    if (this.draining) return SHUTTING_DOWN;
    const charged = this.spend(client, 1);
    if (charged === undefined) return this.keyRule(credentials);
    return charged instanceof Promise
      ? charged.then((refused) => refused ?? this.keyRule(credentials))
      : charged;
  }

  /**
   * A message on a connection admitted at its upgrade (its key was checked then): drain,
   * then one point of `client`'s budget. Without a client (an embedder's own transport)
   * no budget applies.
   */
  admitMessage(client: string | undefined): Verdict | Promise<Verdict> {
    return this.draining ? SHUTTING_DOWN : this.spend(client, 1);
  }

  /**
   * The rest of a parsed body's price: a batch costs one point per call, its first paid on
   * admission. An admitted message is not refused for draining since: calls under way finish.
   */
  chargeCalls(client: string | undefined, body: unknown): Verdict | Promise<Verdict> {
    const more = RateLimit.pointsFor(body) - 1;
    return more > 0 ? this.spend(client, more) : undefined;
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

  private spend(client: string | undefined, points: number): Verdict | Promise<Verdict> {
    const limit = this.rateLimit;
    if (limit === undefined || client === undefined) return undefined;
    return limit
      .retryAfter(client, points, this.log)
      .then((retryAfterSeconds) =>
        retryAfterSeconds === undefined ? undefined : { why: 'RATE_LIMITED', retryAfterSeconds },
      );
  }

  private keyRule({ authorization, query }: Credentials): Verdict {
    return this.apiKeys.enabled && !this.apiKeys.accepts(authorization, query) ? UNAUTHORIZED : undefined;
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
