import { isAbsolute, resolve } from 'node:path';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A plugin module given as a path (`./x.js`, `../x.js`, `/x.js`), not as a package name or URL. */
export const isModulePath = (spec: string): boolean => /^\.{1,2}[\\/]/.test(spec) || isAbsolute(spec);

/**
 * Makes the relative paths of a config absolute against `baseDir`: `routes.file`,
 * `statuses.store.path` (`:memory:` is no path) and plugin module paths (package names
 * stay as they are). Works on unvalidated input too: a value of the wrong type is left
 * for the schema to reject. Mutates `config`. Called with the config file's directory
 * for what the file says, then with the working directory for the rest (environment,
 * flags, defaults); an absolute path is left alone, so the second call only fills in.
 */
export function resolvePaths(config: Json, baseDir: string): void {
  const { routes, statuses, plugins } = config;
  if (isObject(routes) && typeof routes.file === 'string') routes.file = resolve(baseDir, routes.file);
  const store = isObject(statuses) ? statuses.store : undefined;
  if (isObject(store) && typeof store.path === 'string' && store.path !== ':memory:')
    store.path = resolve(baseDir, store.path);
  if (!Array.isArray(plugins)) return;
  plugins.forEach((entry: unknown, i) => {
    if (typeof entry === 'string' && isModulePath(entry)) plugins[i] = resolve(baseDir, entry);
    else if (isObject(entry) && typeof entry.module === 'string' && isModulePath(entry.module))
      entry.module = resolve(baseDir, entry.module);
  });
}
