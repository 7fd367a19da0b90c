import { redactUrl } from '@rollup-router/core/internal';
import { redactRedisUrl } from '@rollup-router/signature-statuses';
import type { ServerConfig } from '../config/server-config.js';

/** The effective configuration fit to print: no API key, metrics token, upstream, chain or Redis credential. */
export function redactConfig(config: ServerConfig): unknown {
  return {
    ...config,
    apiKeys: config.apiKeys.map((k) => (typeof k === 'string' ? '[redacted]' : { ...k, key: '[redacted]' })),
    metrics: config.metrics.token === undefined ? config.metrics : { ...config.metrics, token: '[redacted]' },
    statuses: {
      ...config.statuses,
      upstreams: config.statuses.upstreams?.map((u) => ({ ...u, url: redactUrl(u.url) })),
    },
    redis: config.redis && { ...config.redis, url: redactRedisUrl(config.redis.url) },
    routes: config.routes.chain
      ? { ...config.routes, chain: redactChain(config.routes.chain) }
      : config.routes,
  };
}

type ChainSection = NonNullable<ServerConfig['routes']['chain']>;

const redactChain = (chain: ChainSection): ChainSection => ({
  ...chain,
  url: redactUrl(chain.url),
  ...(chain.wsUrl === undefined ? {} : { wsUrl: redactUrl(chain.wsUrl) }),
});
