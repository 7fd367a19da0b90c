/**
 * Shared by the server's end-to-end tests: the built CLI as a child process, a
 * stand-in Solana node on loopback that answers like the captured validator, and
 * valid signatures. Everything here is real: processes, sockets, SQLite files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SignatureStatus } from '@rollup-router/signature-statuses';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { status } from '@rollup-router/test-support/solana';

export const REPO = resolve(import.meta.dirname, '..');
export const CLI = join(REPO, 'packages/server/dist/cli.js');

export { randomSignature as signature, newIdentity as pubkey } from '@rollup-router/test-support/solana';
import { tempDir } from '@rollup-router/test-support/temp-dir';
export { tempDir };

/** A status as the validator writes it (keys in its alphabetical order). */
export type Status = SignatureStatus;
export const finalized = (slot: number): Status => status('finalized', slot);

export function writeJson(file: string, value: unknown): string {
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

export type StandIn = SolanaStandIn;

/** A Solana node on loopback answering like the captured validator (see SolanaStandIn). */
export async function standInUpstream(known = new Map<string, Status>(), delayMs = 0): Promise<StandIn> {
  const upstream = await SolanaStandIn.start(4242, known);
  upstream.delayMs = delayMs;
  return upstream;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly base: string;
  readonly port: number;
  /** Every JSON log line so far. */
  logs(): Record<string, unknown>[];
  output(): string;
  readonly exited: Promise<number | null>;
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL if still running; for cleanup. */
  kill(): Promise<void>;
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI to completion (check-config, import-statuses, --help). */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO,
  nodeOptions: readonly string[] = [],
): Promise<RunResult> {
  const child = spawn(process.execPath, [...nodeOptions, CLI, ...args], {
    cwd,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

/** The environment without the server's own variables, so the host's settings cannot leak into a test. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (k === 'HOST' || k === 'PORT' || k === 'LOG_LEVEL' || k.startsWith('ROLLUP_ROUTER_')) delete env[k];
  return env;
}

/** How `serveWith` starts the CLI besides `--config <file> --port 0`. */
export interface ServeOptions {
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly nodeOptions?: readonly string[];
}

/** Writes `config` to `<dir>/config.json` and starts the CLI on it, on an ephemeral port. */
export function serveWith(dir: string, config: unknown, options: ServeOptions = {}): Promise<ServerProcess> {
  const { args = [], env = {}, cwd = REPO, nodeOptions = [] } = options;
  const file = writeJson(join(dir, 'config.json'), config);
  return startCli(['--config', file, '--port', '0', ...args], env, cwd, nodeOptions);
}

/** The server a suite runs against, and the temporary directory that holds its config. */
export interface SuiteServer {
  readonly server: ServerProcess;
  readonly dir: string;
}

/**
 * Registers the suite's `before` (a temp dir, `config` written there, the CLI started on it)
 * and `after` (the process killed, the dir removed); read `server` from a test or hook.
 */
export function serveForSuite(config: unknown, options: ServeOptions = {}): SuiteServer {
  let tmp: ReturnType<typeof tempDir> | undefined;
  let server: ServerProcess | undefined;
  before(async () => {
    tmp = tempDir();
    server = await serveWith(tmp.dir, config, options);
  });
  after(async () => {
    await server?.kill();
    tmp?.remove();
  });
  return {
    get server(): ServerProcess {
      if (server === undefined) throw new Error('the suite server is not started yet (read it from a test)');
      return server;
    },
    get dir(): string {
      if (tmp === undefined) throw new Error('the suite has no temp dir yet (read it from a test)');
      return tmp.dir;
    },
  };
}

/**
 * Starts the built CLI (`node ...nodeOptions packages/server/dist/cli.js ...args`) and
 * resolves once it logs `listening`, with the real port from that line.
 */
export function startCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO,
  nodeOptions: readonly string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeOptions, CLI, ...args], {
    cwd,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not log "listening" within 20 s; output:\n${out}`));
    }, 20_000);
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      partial += c.toString();
      const complete = partial.split('\n');
      partial = complete.pop()!;
      for (const line of complete) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (typeof entry.port === 'number' && String(entry.msg).startsWith('listening')) {
          clearTimeout(timer);
          const port = entry.port;
          resolveStart({
            child,
            port,
            base: `http://127.0.0.1:${port}`,
            logs: () => lines,
            output: () => out,
            exited,
            signal: (sig) => void child.kill(sig),
            kill: async () => {
              if (child.exitCode === null && child.signalCode === null) {
                child.kill('SIGKILL');
                await exited;
              }
            },
          });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening; output:\n${out}`));
    });
  });
}

export interface RpcReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/** POSTs a JSON-RPC body and parses the answer. */
export async function rpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RpcReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}

export async function get(url: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The value of one sample in Prometheus text, or undefined when the series is absent. */
export function sample(metrics: string, series: string): number | undefined {
  for (const line of metrics.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
