import { redactUrl } from '@rollup-router/core';
import type { ServerConfig } from '../config/server-config.js';

/** The effective configuration fit to print: no API key, no upstream credential. */
export function redactConfig(config: ServerConfig): unknown {
  return {
    ...config,
    apiKeys: config.apiKeys.map(() => '[redacted]'),
    statuses: {
      ...config.statuses,
      upstreams: config.statuses.upstreams?.map((u) => ({ ...u, url: redactUrl(u.url) })),
    },
  };
}
