import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedDefaults, loadConfig, startServer, type RunningServer } from '@rollup-router/server';
import { pino } from 'pino';
import { tempDir } from './temp-dir.js';

/** Deep-merges `over` onto `base` (objects only; arrays and scalars replace). */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
        ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** The reference server in process, from the embedded defaults with `config` over them, read from a real file. */
export async function startWith(
  config: Record<string, unknown>,
): Promise<RunningServer & { cleanup(): void }> {
  const tmp = tempDir();
  const file = join(tmp.dir, 'config.json');
  const base = embeddedDefaults() as Record<string, unknown>;
  writeFileSync(file, JSON.stringify(merge(base, { port: 0, statuses: { store: false }, ...config })));
  const { config: loaded } = await loadConfig({ file });
  const server = await startServer(loaded, { logger: pino({ level: 'silent' }) });
  return Object.assign(server, { cleanup: tmp.remove });
}
