/**
 * A real redis-server for tests (Debian's package; .ci/run installs it): on a free
 * loopback port, with its own temporary directory, no persistence. Faults are real
 * signals: pause (SIGSTOP) freezes it with its connections open, kill (SIGKILL) ends it,
 * restart brings it back on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasRedisServer, redisArgs, untilRedisReady } from './redis-launch.mjs';
import { listenOnReusablePort } from './reusable-port.js';

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:PORT, with the password when one was set. */
  readonly url: string;
  pause(): void;
  resume(): void;
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** Whether redis-server can be run here; tests that need it say they were skipped otherwise. */
export { hasRedisServer };

/** A free port below the ephemeral range, so that a restart can take it back. */
function freePort(): Promise<number> {
  return listenOnReusablePort(
    (port) =>
      new Promise((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
      }),
  );
}

async function launch(port: number, dir: string, password: string | undefined): Promise<ChildProcess> {
  const child = spawn('redis-server', redisArgs(port, dir, password), { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await untilRedisReady(child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return child;
}

const ended = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

export async function startRedisServer(options: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rollup-router-redis-'));
  let child = await launch(port, dir, options.password);
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  const kill = async (): Promise<void> => {
    const current = child;
    // SIGKILL ends a stopped process too; no SIGCONT first, which would let it run the commands it holds.
    current.kill('SIGKILL');
    await ended(current);
  };
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    kill,
    restart: async () => {
      await kill();
      child = await launch(port, dir, options.password);
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
