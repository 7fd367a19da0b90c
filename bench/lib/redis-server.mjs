// A real redis-server for the bench's Redis rows: on a free loopback port, no
// persistence, pinned to the targets' CPUs like our servers (so "two instances + Redis"
// share the machine the way they would on one host), killed when the runner exits.
// Not installed: `{ absent }`, and the rows say so instead of failing.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasRedisServer, redisArgs, untilRedisReady } from '../../test/support/redis-launch.mjs';
import { pinning, stopChild } from './processes.mjs';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves with `{ url, pid, stop() }`, or `{ absent }` when redis-server cannot run here. */
export async function startRedisServer() {
  if (!hasRedisServer()) return { absent: 'redis-server is not installed (apt-get install redis-server)' };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rollup-router-bench-redis-'));
  const args = redisArgs(port, dir);
  const cpus = pinning();
  const [cmd, argv] = cpus
    ? ['taskset', ['-c', cpus.targets, 'redis-server', ...args]]
    : ['redis-server', args];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilRedisReady(child);
  } catch (err) {
    await stop();
    return { absent: err.message };
  }
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, port, stop };
}

/** Whether Redis holds `key` now (redis-cli, installed with redis-server). */
export function redisHasKey(port, key) {
  const r = spawnSync('redis-cli', ['-p', String(port), 'EXISTS', key], { encoding: 'utf8' });
  return r.stdout.trim() === '1';
}
