// How a real redis-server is started here, in plain JavaScript so that both the tests
// (test/support/redis-server.ts, through tsx) and the bench (bench/lib/group.mjs,
// plain node) launch it the same way: loopback only, its own directory, no persistence.
import { spawnSync } from 'node:child_process';

/** Whether redis-server can be run here. */
export const hasRedisServer = () =>
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** redis-server's arguments: `port` on 127.0.0.1, files in `dir`, no RDB or AOF, `password` if given. */
export function redisArgs(port, dir, password) {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  if (password !== undefined) args.push('--requirepass', password);
  return args;
}

/**
 * Resolves once the spawned redis-server (stdout piped) logs that it accepts connections;
 * rejects with its output if it exits first or is not ready within 10 s. The caller stops it.
 */
export function untilRedisReady(child) {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server not ready within 10 s:\n${out}`)), 10_000);
    child.stdout.on('data', (chunk) => {
      out = (out + chunk.toString()).slice(-4000);
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
}
