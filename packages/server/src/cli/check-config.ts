import { RouteRegistry } from '@rollup-router/routes';
import { pino } from 'pino';
import { routesOptions } from '../build-plugins.js';
import { loadConfig } from '../config/load-config.js';
import { loadPlugins } from '../plugins/load-plugins.js';
import { redactConfig } from './redact-config.js';

/**
 * Validates a config file as the server would run it (environment included), the routes
 * it names and the plugin modules it loads, without listening, probing or starting
 * anything. Prints the effective config. Invalid: throws ConfigError or RouteListError (exit 2).
 */
export async function checkConfig(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { config, overrides } = await loadConfig({ file, env });
  const plugins = await loadPlugins(config.plugins);
  const registry = new RouteRegistry({ ...routesOptions(config.routes), watch: false, health: undefined });
  await registry.start({ log: pino({ level: 'silent' }) });
  const nodes = registry.nodes().length;
  await registry.stop();
  const note = overrides.length > 0 ? ` (with ${overrides.join(', ')})` : '';
  const methods = plugins.flatMap((p) => p.methods ?? []).length;
  const own = plugins.length > 0 ? `; ${plugins.length} plugin module(s), ${methods} method(s)` : '';
  return `${file}: valid${note}; ${nodes} route(s)${own}\n${JSON.stringify(redactConfig(config), null, 2)}\n`;
}
