import {
  createRedisClient,
  RedisAuthError,
  RedisLink,
  type RedisClientLike,
  type RedisConnectOptions,
} from '@rollup-router/signature-statuses';
import type { RateBudget } from '@rollup-router/core';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { BudgetStore } from '../cluster/cluster-rate-limit.js';
import { ConfigError } from '../config/config-error.js';

/** Where the Redis URL can come from, for the error that names it. */
const URL_KEY = '/redis/url (or ROLLUP_ROUTER_REDIS_URL)';

/**
 * The server's one connection to the shared Redis: handed to the statuses plugin (shared
 * statuses and affinity) and to the rate limiter (one budget per client address and per API
 * key across instances).
 */
export class SharedRedis {
  private constructor(
    readonly client: RedisClientLike,
    readonly link: RedisLink,
  ) {}

  /**
   * Connects. Wrong credentials are a ConfigError naming the key (exit 2): nothing will
   * work until the config is fixed. Redis unreachable is an outage, logged: the server
   * starts anyway and shares once Redis answers.
   */
  static async connect(options: RedisConnectOptions, log: Logger): Promise<SharedRedis> {
    const client = createRedisClient(options, `${URL_KEY} is set`);
    const link = new RedisLink(client, log);
    try {
      await link.connect();
    } catch (err) {
      if (err instanceof RedisAuthError)
        throw new ConfigError(`invalid config: ${URL_KEY}: Redis refused the credentials (${err.message})`);
      throw err;
    }
    return new SharedRedis(client, link);
  }

  /**
   * The store of one budget (core's rateLimiterFor): rate-limiter-flexible's Redis limiter
   * (atomic, so racing calls on every instance share the budget exactly), insured by a
   * per-instance memory limiter with the same budget, used whenever Redis is not connected
   * or a command fails or times out (`insurance`, under `workers`: the primary's, one for the
   * instance). Redis only counts: budgets and keys come from config, and an API key is counted
   * under its name, never the key.
   */
  rateLimiter(
    { points, durationSeconds }: RateBudget,
    keyPrefix: string,
    insurance?: BudgetStore,
  ): RateLimiterAbstract {
    const budget = { points, duration: durationSeconds };
    return new RateLimiterRedis({
      ...budget,
      storeClient: this.client,
      keyPrefix,
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance?.({ points, durationSeconds }, keyPrefix) ?? new RateLimiterMemory(budget),
    });
  }

  close(): Promise<void> {
    return this.link.close();
  }
}
