import { createRpc, type Plugin, type Rpc } from '@rollup-router/core';
import type { Logger } from 'pino';
import { ConfigError } from './config/config-error.js';
import type { ServerConfig } from './config/server-config.js';
import type { SharedRedis } from './redis/shared-redis.js';

/**
 * The core service over every plugin; two plugins serving one method name, a perMethod
 * entry for a method no plugin serves, and an API key or key name listed twice are
 * configuration mistakes.
 */
export function buildRpc(
  config: ServerConfig,
  plugins: Plugin[],
  log: Logger,
  redis: SharedRedis | undefined,
): Rpc {
  try {
    return createRpc({
      plugins,
      logger: log,
      limits: config.limits,
      websocket: config.websocket.limits,
      callLog: config.callLog,
      cors: config.cors,
      apiKeys: config.apiKeys,
      rateLimit: config.rateLimit,
      perMethod: config.perMethod,
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
      // With Redis, one budget per client and per API key across every instance (per instance while Redis is down).
      ...(redis && { rateLimiterFor: (budget, keyPrefix) => redis.rateLimiter(budget, keyPrefix) }),
      validateResults: config.validateResults,
      discovery: config.discovery,
      info: config.info,
    });
  } catch (err) {
    throw new ConfigError(`invalid config: ${(err as Error).message}`);
  }
}
