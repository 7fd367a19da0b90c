import type { Logger } from 'pino';
import { loadOptionalPackage } from './optional-package.js';

/**
 * What core calls on a limiter: any of rate-limiter-flexible's stores (RateLimiterMemory,
 * RateLimiterRedis, ...) fits. Typed here by shape, so that core's declarations name no type
 * of that package, an optional peer (a project without it type-checks with skipLibCheck off).
 */
export interface RateLimiterLike {
  consume(key: string, points?: number): Promise<unknown>;
}

/** A budget: points per window of durationSeconds. */
export interface RateBudget {
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * Makes the store of one budget (RpcOptions.rateLimiterFor): `keyPrefix` keeps apart the
 * budgets that share a store, `rate` for client addresses and `rate-key` for API keys (each
 * counted under its name).
 */
export type RateLimiterFactory = (budget: RateBudget, keyPrefix: string) => RateLimiterLike;

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Seconds until the budget allows the request, for Retry-After. */
  readonly retryAfterSeconds: number;
}

/**
 * One budget with rate-limiter-flexible: every client address's (keyed by address), or
 * one API key's. The memory store is the default; any of its stores (Redis for a budget
 * shared by several instances) can be passed in instead, with no other change.
 */
export class RateLimit {
  constructor(private readonly limiter: RateLimiterLike) {}

  /**
   * The default store; rate-limiter-flexible is an optional peer, loaded only when a budget
   * is set. `option` names the setting that asks for it, in the error when it is missing.
   */
  static inMemory({ points, durationSeconds }: RateBudget, option = '/rateLimit'): RateLimit {
    const { RateLimiterMemory } = loadOptionalPackage<typeof import('rate-limiter-flexible')>(
      import.meta.url,
      'rate-limiter-flexible',
      `core option ${option} is set`,
    );
    return new RateLimit(new RateLimiterMemory({ points, duration: durationSeconds }));
  }

  async consume(key: string, points: number): Promise<RateLimitDecision> {
    try {
      await this.limiter.consume(key, points);
      return { allowed: true, retryAfterSeconds: 0 };
    } catch (rejection) {
      // The limiter rejects with its result when the budget is spent, and with an Error when its store fails.
      if (isLimiterResult(rejection)) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      throw rejection;
    }
  }

  /**
   * Seconds the client must wait, or undefined when the call may go on. A shared store that
   * is down must not take the service down with it: its failure is logged and the call allowed.
   */
  async retryAfter(key: string, points: number, log: Logger): Promise<number | undefined> {
    try {
      const decision = await this.consume(key, points);
      return decision.allowed ? undefined : decision.retryAfterSeconds;
    } catch (err) {
      log.error({ err }, 'rate limit store failed; request allowed');
      return undefined;
    }
  }
}

/**
 * The limiter's result, told apart by shape rather than by class: a limiter passed in
 * (rateLimiter) may come from another copy of rate-limiter-flexible than the one core
 * would load, and none is loaded at all when only a limiter is passed.
 */
const isLimiterResult = (rejection: unknown): rejection is { readonly msBeforeNext: number } =>
  !(rejection instanceof Error) &&
  typeof (rejection as { msBeforeNext?: unknown } | null)?.msBeforeNext === 'number';
