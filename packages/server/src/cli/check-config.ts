import { RouteRegistry } from '@rollup-router/routes';
import { pino } from 'pino';
import { routesOptions, statusUpstreams } from '../build-plugins.js';
import { loadConfig } from '../config/load-config.js';
import type { ServerConfig } from '../config/server-config.js';
import { loadPlugins } from '../plugins/load-plugins.js';
import { SharedRedis } from '../redis/shared-redis.js';
import { redactConfig } from './redact-config.js';

/**
 * Validates a config file as the server would run it (environment included), the routes
 * it names and the plugin modules it loads, without listening, probing or starting
 * anything. With `redis`, it connects once: credentials Redis refuses are a ConfigError
 * like any bad key; Redis unreachable is only noted, since the server starts without it.
 * Prints the effective config. Invalid: throws ConfigError or RouteListError (exit 2).
 */
export async function checkConfig(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { config, overrides } = await loadConfig({ file, env });
  statusUpstreams(config); // refuses the base chain under a second name, as the server does
  const plugins = await loadPlugins(config.plugins);
  const registry = new RouteRegistry({ ...routesOptions(config.routes), watch: false, health: undefined });
  await registry.start({ log: pino({ level: 'silent' }) });
  const nodes = registry.nodes().length;
  await registry.stop();
  const redis = config.redis ? `; redis ${await checkRedis(config.redis)}` : '';
  const note = overrides.length > 0 ? ` (with ${overrides.join(', ')})` : '';
  const methods = plugins.flatMap((p) => p.methods ?? []).length;
  const own = plugins.length > 0 ? `; ${plugins.length} plugin module(s), ${methods} method(s)` : '';
  return `${file}: valid${note}; ${nodes} route(s)${own}${redis}\n${JSON.stringify(redactConfig(config), null, 2)}\n`;
}

/** Connects to Redis once and says how it went; wrong credentials throw ConfigError. */
async function checkRedis(options: NonNullable<ServerConfig['redis']>): Promise<string> {
  const redis = await SharedRedis.connect(options, pino({ level: 'silent' }));
  const state = redis.link.up ? 'connected' : `unreachable (${redis.link.cause ?? 'not connected'})`;
  await redis.close();
  return state;
}
