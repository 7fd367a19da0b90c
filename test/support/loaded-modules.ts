// Which modules a Node process loaded, by both loaders: a resolve hook (module.register)
// sees every ESM import, and require.cache every CommonJS module (the optional peers are
// loaded with require). The probe is a --import module; the list is written at exit.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tempDir, type TempDir } from './temp-dir.js';

const HOOK = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LOADED_MODULES_LOG, resolved.url + '\\n');
  return resolved;
}
`;

const PROBE = `
import { register, createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
process.on('exit', () => {
  const esm = readFileSync(process.env.LOADED_MODULES_LOG, 'utf8').split('\\n').filter(Boolean);
  const cjs = Object.keys(createRequire(import.meta.url).cache);
  const api = globalThis[Symbol.for('opentelemetry.js.api.1')];
  writeFileSync(process.env.LOADED_MODULES_OUT, JSON.stringify({
    modules: [...new Set([...esm, ...cjs])],
    otelGlobals: api === undefined ? [] : Object.keys(api).filter((k) => k !== 'version'),
  }));
});
`;

export interface LoadedModules {
  /** The modules (URLs and paths) the process loaded. */
  readonly modules: readonly string[];
  /** What was registered with the OpenTelemetry API's globals (trace, context, propagation...). */
  readonly otelGlobals: readonly string[];
}

export interface ModuleProbe {
  /** Node options that load the probe. */
  readonly nodeOptions: readonly string[];
  /** Environment the probed process needs. */
  readonly env: Readonly<Record<string, string>>;
  /** What the process loaded; read after it exited. */
  read(): LoadedModules;
  remove(): void;
}

export function moduleProbe(): ModuleProbe {
  const dir: TempDir = tempDir('rollup-router-probe-');
  const probe = dir.file('probe.mjs');
  writeFileSync(probe, PROBE);
  writeFileSync(dir.file('esm.log'), '');
  return {
    nodeOptions: ['--import', pathToFileURL(probe).href],
    env: { LOADED_MODULES_LOG: dir.file('esm.log'), LOADED_MODULES_OUT: dir.file('loaded.json') },
    read: () => JSON.parse(readFileSync(dir.file('loaded.json'), 'utf8')) as LoadedModules,
    remove: () => dir.remove(),
  };
}

/** The OpenTelemetry packages among `modules`, by name (`@opentelemetry/api`), once each. */
export function openTelemetryPackages(modules: readonly string[]): string[] {
  const names = modules.flatMap((m) => /node_modules\/(@opentelemetry\/[^/]+)/.exec(m)?.[1] ?? []);
  return [...new Set(names)].sort();
}
