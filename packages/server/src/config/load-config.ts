import { resolve } from 'node:path';
import { compileSchema } from '@rollup-router/core';
import { configSchema } from '../generated/schemas.js';
import { exampleRoutesFile } from '../paths.js';
import { ConfigError } from './config-error.js';
import { applyEnvOverrides } from './env-overrides.js';
import { explainFailure, schemaAt } from './explain-failure.js';
import { readConfigFile } from './read-config-file.js';
import type { ServerConfig } from './server-config.js';

/** Command-line flags that override the file and the environment. */
export interface ConfigFlags {
  readonly host?: string;
  readonly port?: string;
  readonly logLevel?: string;
}

export interface ConfigSources {
  /** A JSON or YAML config file; without one the server runs on embedded defaults. */
  readonly file?: string;
  /** Environment overrides (HOST, PORT, ROLLUP_ROUTER_*); default none. */
  readonly env?: NodeJS.ProcessEnv;
  readonly flags?: ConfigFlags;
}

export interface LoadedConfig {
  readonly config: ServerConfig;
  /** The file, or `embedded defaults`. */
  readonly source: string;
  /** Environment variables and flags that overrode the file, by name. */
  readonly overrides: readonly string[];
}

/**
 * What runs when no config file is given: the example routes file shipped with the
 * package (no health probing), the SQLite store under ./data/, no upstreams. The schema
 * supplies everything else, so this works offline.
 */
export const embeddedDefaults = (): Record<string, unknown> => ({ routes: { file: exampleRoutesFile } });

const validateConfig = compileSchema<ServerConfig>(configSchema);

/**
 * Reads, overrides and validates the configuration: file (or embedded defaults), then
 * environment, then flags; schema defaults fill the rest. A bad value is a ConfigError
 * naming the key, the rule and, when it came from one, the variable or flag.
 */
export async function loadConfig(sources: ConfigSources = {}): Promise<LoadedConfig> {
  const raw = sources.file === undefined ? embeddedDefaults() : await readConfigFile(sources.file);
  const source = sources.file ?? 'embedded defaults';
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`invalid config (${source}): the top level must be an object of settings`);
  }
  const config = structuredClone(raw) as Record<string, unknown>;
  const origins = new Map<string, string>();
  for (const o of applyEnvOverrides(config, sources.env ?? {}))
    origins.set(o.key, `environment variable ${o.name}`);
  const { host, port, logLevel } = sources.flags ?? {};
  if (host !== undefined) setFlag(config, origins, 'host', '--host', host);
  if (port !== undefined)
    setFlag(config, origins, 'port', '--port', /^\d+$/.test(port) ? Number(port) : port);
  if (logLevel !== undefined) setFlag(config, origins, 'logLevel', '--log-level', logLevel);

  if (!validateConfig(config)) {
    const failure = explainFailure(configSchema, config, validateConfig.failure());
    const origin = [...origins].find(([key]) => failure.path === key || failure.path.startsWith(`${key}/`));
    const about = schemaAt(configSchema, failure.path)?.description;
    throw new ConfigError(
      `invalid config (${source}): ${failure.path} ${failure.message} (rule: ${failure.rule})` +
        (origin ? `, set by ${origin[1]}` : '') +
        (typeof about === 'string' ? `\n  ${failure.path}: ${about}` : ''),
    );
  }
  return { config: absolutePaths(config), source, overrides: [...origins.values()] };
}

function setFlag(
  config: Record<string, unknown>,
  origins: Map<string, string>,
  key: string,
  flag: string,
  value: unknown,
): void {
  config[key] = value;
  origins.set(`/${key}`, `flag ${flag}`);
}

/** Paths are relative to the working directory; made absolute once so logs say exactly which file. */
function absolutePaths(config: ServerConfig): ServerConfig {
  const { routes, statuses } = config;
  return {
    ...config,
    routes: routes.file === undefined ? routes : { ...routes, file: resolve(routes.file) },
    statuses:
      statuses.store === false || statuses.store.path === ':memory:'
        ? statuses
        : { ...statuses, store: { path: resolve(statuses.store.path) } },
  };
}
