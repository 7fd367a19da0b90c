import { redactUrl } from '@rollup-router/core';
import type { ChainProvider } from '@rollup-router/solana';
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
    delegation: config.delegation.baseChain
      ? { ...config.delegation, baseChain: redactChain(config.delegation.baseChain) }
      : config.delegation,
  };
}

/** A cluster's section: its one URL, or its providers (whose headers may hold keys). */
interface ChainSection {
  readonly url?: string;
  readonly wsUrl?: string;
  readonly providers?: readonly ChainProvider[];
}

const redactChain = <T extends ChainSection>(chain: T): T => ({
  ...chain,
  ...(chain.url === undefined ? {} : { url: redactUrl(chain.url) }),
  ...(chain.wsUrl === undefined ? {} : { wsUrl: redactUrl(chain.wsUrl) }),
  ...(chain.providers === undefined ? {} : { providers: chain.providers.map(redactProvider) }),
});

const redactProvider = (p: ChainProvider): ChainProvider => ({
  ...p,
  url: redactUrl(p.url),
  ...(p.wsUrl === undefined ? {} : { wsUrl: redactUrl(p.wsUrl) }),
  ...(p.headers === undefined
    ? {}
    : { headers: Object.fromEntries(Object.keys(p.headers).map((k) => [k, '[redacted]'])) }),
});
