// podman as these hosts run it (../shared/notes/containers.md, docs/deploy.md): runc and cgroupfs
// (no systemd, and crun refuses the kernel's hybrid cgroups), limits within the session's own.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const PODMAN_FLAGS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
export const PODMAN_LIMITS = ['--ulimit', 'nofile=16384:16384', '--ulimit', 'nproc=4096:4096'];

export interface Ran {
  readonly status: number | null;
  /** stdout then stderr. */
  readonly out: string;
}

/** `podman ARGS` in `cwd`, waited for at most `timeoutMs`. */
export function podman(cwd: string, args: readonly string[], timeoutMs = 60_000): Ran {
  const ran = spawnSync('podman', [...PODMAN_FLAGS, ...args], { cwd, encoding: 'utf8', timeout: timeoutMs });
  return { status: ran.status, out: `${ran.stdout}${ran.stderr}` };
}

/**
 * The repository's Dockerfile built as `tag` on a Node 22 base of Debian packages
 * (deploy/container/node-base.sh: no registry is reachable here); the base is built once and reused.
 */
export function buildRouterImage(repo: string, tag: string): Ran {
  const base = spawnSync('bash', [join(repo, 'deploy/container/node-base.sh'), '22'], {
    encoding: 'utf8',
    timeout: 20 * 60_000,
  });
  if (base.status !== 0) return { status: base.status, out: `node-base.sh: ${base.stderr}` };
  const nodeImage = base.stdout.trim();
  const args = ['build', '--format', 'docker', '--network=host', ...PODMAN_LIMITS];
  return podman(repo, [...args, '--build-arg', `NODE_IMAGE=${nodeImage}`, '-t', tag, '.'], 25 * 60_000);
}
