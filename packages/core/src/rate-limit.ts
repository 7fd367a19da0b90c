import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Seconds until the budget allows the request, for Retry-After. */
  readonly retryAfterSeconds: number;
}

/**
 * Per-client budgets with rate-limiter-flexible. The memory store is the default;
 * any of its stores (Redis for a budget shared by several instances) can be passed
 * in instead, with no other change.
 */
export class RateLimit {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly trustProxy: boolean,
  ) {}

  static inMemory(points: number, durationSeconds: number, trustProxy: boolean): RateLimit {
    return new RateLimit(new RateLimiterMemory({ points, duration: durationSeconds }), trustProxy);
  }

  clientKey(remoteAddress: string | undefined, forwardedFor: string | undefined): string {
    if (this.trustProxy && forwardedFor) return forwardedFor.split(',')[0]!.trim();
    return remoteAddress ?? 'unknown';
  }

  async consume(key: string, points: number): Promise<RateLimitDecision> {
    try {
      await this.limiter.consume(key, points);
      return { allowed: true, retryAfterSeconds: 0 };
    } catch (rejection) {
      // The limiter rejects with its result when the budget is spent, and with an Error when its store fails.
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      throw rejection;
    }
  }
}
