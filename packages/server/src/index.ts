export { startServer, type RunningServer, type StartServerOptions } from './server.js';
export { shutdownBoundMs } from './shutdown.js';
export {
  loadConfig,
  embeddedDefaults,
  type ConfigFlags,
  type ConfigSources,
  type LoadedConfig,
} from './config/load-config.js';
export { ConfigError } from './config/config-error.js';
export { ENV_OVERRIDES, type EnvOverride } from './config/env-overrides.js';
export type { ServerConfig } from './config/server-config.js';
export { createServerLogger, type ServerLogger } from './logger.js';
/** Re-exported for embedders who write the server's log to a file of their own. */
export { logDestination } from '@rollup-router/core';
export {
  ServerMetrics,
  type ServerMetricsOptions,
  type NodeView,
  type ProbeView,
  type RedisLinkView,
} from './metrics/server-metrics.js';
export { readinessReport, type ReadinessReport, type ReadinessSources } from './readiness/readiness.js';
export { UpstreamWatch, type UpstreamWatchOptions } from './readiness/upstream-watch.js';
export { SECURITY_HEADERS } from './http/security-headers.js';
export { buildPlugins, routesOptions, type ServerPlugins } from './build-plugins.js';
export { loadPlugins, type PluginHost } from './plugins/load-plugins.js';
export { version } from './paths.js';
export { configSchema, type Config } from './generated/schemas.js';
