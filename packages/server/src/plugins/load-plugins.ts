import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkPlugin, type Plugin } from '@rollup-router/core';
import type { RoutesPlugin } from '@rollup-router/routes';
import type { SignatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { ConfigError } from '../config/config-error.js';
import type { ServerConfig } from '../config/server-config.js';

type PluginSpec = ServerConfig['plugins'][number];

/**
 * What a plugin module's factory gets beside its options: the server's own plugins, so a
 * module that forwards transactions can call `statuses.track(signature, upstreamUrl)`
 * (shared by every instance when `redis` is set). Absent when check-config only loads it.
 */
export interface PluginHost {
  readonly statuses: SignatureStatusesPlugin;
  readonly routes: RoutesPlugin;
}

/**
 * The URL to import for a module: a path as a file URL, a package name as Node resolves
 * it from `fromDir` (the working directory), else as the server's own imports would.
 */
function moduleUrl(module: string, fromDir: string): string {
  if (isAbsolute(module)) return pathToFileURL(module).href;
  try {
    return pathToFileURL(createRequire(join(fromDir, 'noop.js')).resolve(module)).href;
  } catch {
    // An ESM-only package exports no `require` condition; let import() resolve it.
    return module;
  }
}

/**
 * Loads plugin modules: each default-exports a Plugin, or a function taking the entry's
 * `options` (and the `host`) and returning a Plugin (or a promise of one). A module that cannot be loaded,
 * exports something else, or whose plugin is broken (a method with no handler, a misspelled
 * key) is a ConfigError naming it: nothing has started yet.
 */
export async function loadPlugins(
  specs: readonly PluginSpec[],
  fromDir = process.cwd(),
  host?: PluginHost,
): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (const spec of specs) {
    const { module, options } = typeof spec === 'string' ? { module: spec, options: undefined } : spec;
    const fail = (why: string): never => {
      throw new ConfigError(`plugin module ${module}: ${why}`);
    };
    let exported: unknown;
    try {
      exported = ((await import(moduleUrl(module, fromDir))) as { default?: unknown }).default;
    } catch (err) {
      fail(`cannot be loaded: ${(err as Error).message}`);
    }
    if (typeof exported !== 'function' && options !== undefined)
      fail('options are given, but its default export is not a function that takes them');
    let plugin: unknown = exported;
    if (typeof exported === 'function') {
      try {
        plugin = await (exported as (options: unknown, host?: PluginHost) => unknown)(options, host);
      } catch (err) {
        fail(`its default export failed: ${(err as Error).message}`);
      }
    }
    if (plugin === null || typeof plugin !== 'object')
      fail('the default export must be a Plugin ({name, methods}) or a function returning one');
    try {
      // A method with no handler or a misspelled key would start, and fail every call with -32603.
      checkPlugin(plugin, 'its plugin');
    } catch (err) {
      fail((err as Error).message);
    }
    plugins.push(plugin as Plugin);
  }
  return plugins;
}
