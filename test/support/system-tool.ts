import { spawnSync } from 'node:child_process';

/**
 * Whether a system program (promtool, prometheus, podman, systemd-analyze) runs here. A test
 * that needs a missing one says so and is skipped: CI installs them (.ci/run), a laptop may not.
 */
export function hasTool(program: string, versionArgs: readonly string[] = ['--version']): boolean {
  const ran = spawnSync(program, versionArgs, { stdio: 'ignore', timeout: 30_000 });
  return ran.error === undefined && ran.status === 0;
}

/** Skips the running test or hook, with a line saying which program is missing and which package brings it. */
export function skipWithout(
  context: Mocha.Context,
  program: string,
  debianPackage: string,
  versionArgs: readonly string[] = ['--version'],
): void {
  if (hasTool(program, versionArgs)) return;
  console.log(`      (${program} is not installed: skipped; apt-get install ${debianPackage})`);
  context.skip();
}
