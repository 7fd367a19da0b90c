import { RouteRegistry } from '@rollup-router/routes';
import { pino } from 'pino';
import { routesOptions } from '../build-plugins.js';
import { loadConfig } from '../config/load-config.js';
import { redactConfig } from './redact-config.js';

/**
 * Validates a config file as the server would run it (environment included), and the
 * routes it names, without listening or probing anything. Prints the effective config.
 * Invalid: throws ConfigError or RouteListError (exit 2).
 */
export async function checkConfig(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { config, overrides } = await loadConfig({ file, env });
  const registry = new RouteRegistry({ ...routesOptions(config.routes), watch: false, health: undefined });
  await registry.start({ log: pino({ level: 'silent' }) });
  const nodes = registry.nodes().length;
  await registry.stop();
  const note = overrides.length > 0 ? ` (with ${overrides.join(', ')})` : '';
  return `${file}: valid${note}; ${nodes} route(s)\n${JSON.stringify(redactConfig(config), null, 2)}\n`;
}
