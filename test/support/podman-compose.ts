// Debian's podman-compose 1.0 read by its own code: its variable substitution is what the
// compose file must survive, so the tests run that code rather than restating its rules.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The podman-compose script on the PATH, or undefined. */
export function podmanComposeScript(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v podman-compose'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Runs Python `code` (which may `import podman_compose`) with the interpreter that runs `script`. */
export function podmanComposePython(
  script: string,
  code: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv },
): SpawnSyncReturns<string> {
  const python = readFileSync(script, 'utf8')
    .split('\n')[0]!
    .replace(/^#!\s*/, '');
  return spawnSync(python, ['-c', code, ...args], { ...options, encoding: 'utf8' });
}
