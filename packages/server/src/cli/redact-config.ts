import type { ServerConfig } from '../config/server-config.js';

/** Providers put API keys in an upstream URL's path or query: show the origin only. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.length > 1 || u.search !== '' || u.username !== '' ? `${u.origin}/…` : u.origin;
  } catch {
    return '(invalid URL)';
  }
}

/** The effective configuration fit to print: no API key, metrics token or upstream credential. */
export function redactConfig(config: ServerConfig): unknown {
  return {
    ...config,
    apiKeys: config.apiKeys.map(() => '[redacted]'),
    metrics: config.metrics.token === undefined ? config.metrics : { ...config.metrics, token: '[redacted]' },
    statuses: {
      ...config.statuses,
      upstreams: config.statuses.upstreams?.map((u) => ({ ...u, url: redactUrl(u.url) })),
    },
  };
}
