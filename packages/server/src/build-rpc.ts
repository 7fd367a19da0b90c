import { createRpc, type Plugin, type RateLimiterFactory, type Rpc } from '@rollup-router/core';
import type { Logger } from 'pino';
import { ConfigError } from './config/config-error.js';
import type { ServerConfig } from './config/server-config.js';

/**
 * The core service over every plugin; two plugins serving one method name, a perMethod
 * entry for a method no plugin serves, and an API key or key name listed twice are
 * configuration mistakes. `budgets` keeps the rate budgets elsewhere than in this process's
 * memory (Redis, or the primary of `workers`).
 */
export function buildRpc(
  config: ServerConfig,
  plugins: Plugin[],
  log: Logger,
  budgets: RateLimiterFactory | undefined,
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
      ...(budgets && { rateLimiterFor: budgets }),
      validateResults: config.validateResults,
      discovery: config.discovery,
      info: config.info,
      tracing: config.tracing,
    });
  } catch (err) {
    throw new ConfigError(`invalid config: ${(err as Error).message}`);
  }
}
