import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/** Where the kernel tells a process its control group and the group's CPU quota. */
export interface CgroupFiles {
  /** The cgroup filesystem: /sys/fs/cgroup. */
  readonly root: string;
  /** The process's membership: /proc/self/cgroup. */
  readonly membership: string;
}

const SYSTEM: CgroupFiles = { root: '/sys/fs/cgroup', membership: '/proc/self/cgroup' };

/**
 * The CPUs this process may use, what `workers: "auto"` runs: os.availableParallelism()
 * (the CPUs it may be scheduled on) bounded by its cgroup's CPU quota, which that call
 * ignores: a container given `--cpus 2` on a 32-core host would otherwise start 32 workers
 * fighting for 2 CPUs. A quota of 2.5 CPUs counts as 3. At least 1.
 */
export function usableCpus(files: CgroupFiles = SYSTEM, parallelism = availableParallelism()): number {
  const quota = cgroupCpuQuota(files);
  return Math.max(1, quota === undefined ? parallelism : Math.min(parallelism, quota));
}

/**
 * The tightest CPU quota on the process's cgroup and its ancestors (a slice's quota binds
 * every service under it), rounded up to whole CPUs; undefined when none is set or the
 * files cannot be read. cgroup v2 (`cpu.max`: "QUOTA PERIOD", or "max PERIOD" for none)
 * and v1 (`cpu.cfs_quota_us`, -1 for none, and `cpu.cfs_period_us`).
 */
export function cgroupCpuQuota(files: CgroupFiles): number | undefined {
  const quotas = candidateDirs(files)
    .map(quotaIn)
    .filter((q): q is number => q !== undefined);
  return quotas.length === 0 ? undefined : Math.min(...quotas);
}

/** Where cgroup v1 may mount its cpu hierarchy under the root (alone or joined with cpuacct). */
const V1_CPU_MOUNTS = ['cpu', 'cpu,cpuacct', 'cpuacct,cpu'];

interface QuotaDir {
  readonly dir: string;
  readonly version: 1 | 2;
}

/**
 * The directories that may hold the quota: the process's group as /proc/self/cgroup names it
 * and each ancestor, for v2 under the root and for v1 under its cpu hierarchy; and the
 * hierarchy's root itself, which is the process's own group inside a container (the file then
 * names the host's path, which the container does not see).
 */
function candidateDirs({ root, membership }: CgroupFiles): QuotaDir[] {
  const dirs: QuotaDir[] = [];
  const lines = readText(membership)?.split('\n') ?? [];
  for (const line of lines) {
    const [hierarchy, controllers, path] = splitMembership(line);
    if (path === undefined) continue;
    if (hierarchy === '0' && controllers === '') dirs.push(...withAncestors(root, path, 2));
    else if (controllers!.split(',').includes('cpu')) {
      for (const mount of V1_CPU_MOUNTS) dirs.push(...withAncestors(join(root, mount), path, 1));
    }
  }
  dirs.push({ dir: root, version: 2 });
  for (const mount of V1_CPU_MOUNTS) dirs.push({ dir: join(root, mount), version: 1 });
  return dirs;
}

/** "ID:CONTROLLERS:PATH"; the path may itself hold colons. */
function splitMembership(line: string): [string?, string?, string?] {
  const first = line.indexOf(':');
  const second = line.indexOf(':', first + 1);
  if (first < 0 || second < 0) return [];
  return [line.slice(0, first), line.slice(first + 1, second), line.slice(second + 1)];
}

function withAncestors(base: string, path: string, version: 1 | 2): QuotaDir[] {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.map((_, i) => ({ dir: join(base, ...parts.slice(0, parts.length - i)), version }));
}

function quotaIn({ dir, version }: QuotaDir): number | undefined {
  if (version === 2) {
    const [quota, period] = (readText(join(dir, 'cpu.max')) ?? '').trim().split(/\s+/);
    return cpusOf(Number(quota), Number(period));
  }
  const quota = Number(readText(join(dir, 'cpu.cfs_quota_us'))?.trim());
  const period = Number(readText(join(dir, 'cpu.cfs_period_us'))?.trim());
  return cpusOf(quota, period);
}

/** "max" and v1's -1 are not numbers above 0: no quota. */
const cpusOf = (quota: number, period: number): number | undefined =>
  quota > 0 && period > 0 ? Math.max(1, Math.ceil(quota / period)) : undefined;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The server processes `workers` asks for: its number, or for "auto" the CPUs this process may use. */
export const workerCount = (setting: number | 'auto', files: CgroupFiles = SYSTEM): number =>
  setting === 'auto' ? usableCpus(files) : setting;
