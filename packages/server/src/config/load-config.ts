import { dirname, resolve } from 'node:path';
import { compileSchema, explainFailure, schemaAt } from '@rollup-router/core';
import { configSchema } from '../generated/schemas.js';
import { exampleRoutesFile } from '../paths.js';
import { ConfigError } from './config-error.js';
import { applyEnvOverrides } from './env-overrides.js';
import { readConfigFile } from './read-config-file.js';
import { resolvePaths } from './resolve-paths.js';
import type { ServerConfig } from './server-config.js';

/** Command-line flags that override the file and the environment. */
export interface ConfigFlags {
  readonly host?: string;
  readonly port?: string;
  readonly logLevel?: string;
  /** `--workers`: a number or auto. */
  readonly workers?: string;
  /** Plugin modules (`--plugin`), added to the file's `plugins`; paths relative to the working directory. */
  readonly plugins?: readonly string[];
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

/** Where a key's value came from when not from the file, and what that source expects. */
interface Origin {
  readonly name: string;
  readonly expected?: string;
}

/**
 * Reads, overrides and validates the configuration: file (or embedded defaults), then
 * environment, then flags; schema defaults fill the rest. Relative paths in the file are
 * resolved against its directory, the others against the working directory. A bad value
 * is a ConfigError naming the key, the rule and, when it came from one, the variable or
 * flag and the form it expects.
 */
export async function loadConfig(sources: ConfigSources = {}): Promise<LoadedConfig> {
  const raw = sources.file === undefined ? embeddedDefaults() : await readConfigFile(sources.file);
  const source = sources.file ?? 'embedded defaults';
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`invalid config (${source}): the top level must be an object of settings`);
  }
  const config = structuredClone(raw) as Record<string, unknown>;
  if (sources.file !== undefined) resolvePaths(config, dirname(resolve(sources.file)));
  const origins = new Map<string, Origin>();
  for (const o of applyEnvOverrides(config, sources.env ?? {}))
    origins.set(o.key, { name: `environment variable ${o.name}`, expected: o.format });
  applyFlags(config, origins, sources.flags ?? {});
  if (sources.file === undefined) dropExampleRoutesForChain(config);

  if (!validateConfig(config)) {
    const failure = explainFailure(configSchema, config, validateConfig.failure());
    const origin = [...origins].find(([key]) => failure.path === key || failure.path.startsWith(`${key}/`));
    const about = schemaAt(configSchema, failure.path)?.description;
    const by =
      origin && `, set by ${origin[1].name}${origin[1].expected ? ` (expected: ${origin[1].expected})` : ''}`;
    throw new ConfigError(
      `invalid config (${source}): ${failure.path} ${failure.message} (rule: ${failure.rule})` +
        (by ?? '') +
        (typeof about === 'string' ? `\n  ${failure.path}: ${about}` : ''),
    );
  }
  resolvePaths(config, process.cwd());
  return { config, source, overrides: [...origins.values()].map((o) => o.name) };
}

/**
 * The example routes stand in for "no route source configured". An operator who points
 * the embedded defaults at a chain (ROLLUP_ROUTER_CHAIN_URL) wants the registered nodes,
 * not three example nodes beside them.
 */
function dropExampleRoutesForChain(config: Record<string, unknown>): void {
  const routes = config.routes as Record<string, unknown> | undefined;
  if (routes?.chain !== undefined && routes.file === exampleRoutesFile) delete routes.file;
}

function applyFlags(config: Record<string, unknown>, origins: Map<string, Origin>, flags: ConfigFlags): void {
  const set = (key: string, flag: string, value: unknown): void => {
    config[key] = value;
    origins.set(`/${key}`, { name: `flag ${flag}` });
  };
  const { host, port, logLevel, workers, plugins } = flags;
  if (host !== undefined) set('host', '--host', host);
  if (port !== undefined) set('port', '--port', /^\d+$/.test(port) ? Number(port) : port);
  if (logLevel !== undefined) set('logLevel', '--log-level', logLevel);
  if (workers !== undefined) set('workers', '--workers', /^\d+$/.test(workers) ? Number(workers) : workers);
  if (plugins !== undefined && plugins.length > 0) {
    // Relative flag paths are resolved against the working directory with the defaults, later.
    const fromFile = Array.isArray(config.plugins) ? (config.plugins as unknown[]) : [];
    config.plugins = [...fromFile, ...plugins];
    if (fromFile.length === 0) origins.set('/plugins', { name: 'flag --plugin' });
  }
}
