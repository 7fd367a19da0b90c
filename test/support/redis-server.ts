/**
 * A real redis-server for tests (Debian's package; .ci/run installs it): on a free
 * loopback port, with its own temporary directory, no persistence. Faults are real
 * signals: pause (SIGSTOP) freezes it with its connections open, kill (SIGKILL) ends it,
 * restart brings it back on the same port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
export const hasRedisServer = (): boolean =>
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

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

function launch(port: number, dir: string, password: string | undefined): Promise<ChildProcess> {
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
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server not ready within 10 s:\n${out}`));
    }, 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
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
