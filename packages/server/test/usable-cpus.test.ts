import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { usableCpus, workerCount, type CgroupFiles } from '../src/cluster/usable-cpus.js';

describe('usableCpus: the CPUs workers: "auto" runs', () => {
  let dir: string;
  let files: CgroupFiles;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cgroup-'));
    files = { root: join(dir, 'sys/fs/cgroup'), membership: join(dir, 'proc/self/cgroup') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (path: string, text: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  const cgroup = (path: string, text: string): void => write(join(files.root, path), text);

  it('no cgroup files at all: every CPU it may be scheduled on', () => {
    expect(usableCpus(files, 8)).to.equal(8);
  });

  it('cgroup v2 inside a container ("0::/"): the root cpu.max quota, rounded up', () => {
    write(files.membership, '0::/\n');
    cgroup('cpu.max', '250000 100000\n');
    expect(usableCpus(files, 32)).to.equal(3);
  });

  it('"max" is no quota', () => {
    write(files.membership, '0::/\n');
    cgroup('cpu.max', 'max 100000\n');
    expect(usableCpus(files, 6)).to.equal(6);
  });

  it('a systemd service: its own group and the slices above it, the tightest one', () => {
    write(files.membership, '0::/system.slice/rollup-router.service\n');
    cgroup('system.slice/rollup-router.service/cpu.max', '400000 100000\n');
    cgroup('system.slice/cpu.max', '200000 100000\n');
    expect(usableCpus(files, 16)).to.equal(2);
  });

  it('never more than the CPUs it may be scheduled on, never fewer than 1', () => {
    write(files.membership, '0::/\n');
    cgroup('cpu.max', '800000 100000\n');
    expect(usableCpus(files, 2)).to.equal(2);
    cgroup('cpu.max', '10000 100000\n');
    expect(usableCpus(files, 2)).to.equal(1);
  });

  it('cgroup v1: cpu.cfs_quota_us over cpu.cfs_period_us; -1 is no quota', () => {
    write(files.membership, '4:memory:/x\n3:cpu,cpuacct:/\n0::/\n');
    cgroup('cpu,cpuacct/cpu.cfs_quota_us', '150000\n');
    cgroup('cpu,cpuacct/cpu.cfs_period_us', '100000\n');
    expect(usableCpus(files, 8)).to.equal(2);
    cgroup('cpu,cpuacct/cpu.cfs_quota_us', '-1\n');
    expect(usableCpus(files, 8)).to.equal(8);
  });

  it('workerCount: a number is taken as it is; "auto" is usableCpus', () => {
    write(files.membership, '0::/\n');
    cgroup('cpu.max', '300000 100000\n');
    expect(workerCount(5, files)).to.equal(5);
    expect(workerCount('auto', files)).to.equal(Math.min(3, usableCpus(files)));
  });
});
