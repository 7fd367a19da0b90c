// Targets run as child processes, each on its own CPU when pinning is on, so the
// server under test never shares a process or a core with the load generator. Every
// child is killed when the runner exits, whatever the reason (end, error, ctrl-C).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const TARGETS = fileURLToPath(new URL('../targets/', import.meta.url));
const live = new Set();

let cpus; // { loadGenerator, targets } when pinned
/** Pins this process (the load generator) to CPU 0 and reserves the others for targets. */
export function pinCpus(enabled) {
  const n = availableParallelism();
  if (!enabled || n < 2) return (cpus = undefined);
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return (cpus = undefined); // no taskset: run unpinned, the machine section says so
  }
  return (cpus = { loadGenerator: '0', targets: n === 2 ? '1' : `1-${n - 1}` });
}
export const pinning = () => cpus;

/** The CPUs process `pid` may run on (`0-1`); undefined once it is gone. */
export const cpusOf = (pid) => {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {} // eslint-disable-line no-empty -- gone
};

/**
 * Pins every thread of `pids` to `list` (taskset -a), as our servers are, until the returned
 * function gives each its CPUs back: the peers' idle work between their rows stays off ours.
 */
export function pinWhile(pids, list) {
  const set = (pid, to) => execFileSync('taskset', ['-a', '-p', '-c', to, String(pid)], { stdio: 'ignore' });
  const before = pids.map((pid) => [pid, cpusOf(pid)]).filter(([, was]) => was && was !== list);
  for (const [pid] of before) set(pid, list);
  return () => before.forEach(([pid, was]) => cpusOf(pid) && set(pid, was));
}

/** A free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Spawns `cmd` on the targets' CPUs (when pinned), killed when the runner exits: `{ child, stop() }`. */
export function startProcess(cmd, args) {
  const [file, argv] = cpus ? ['taskset', ['-c', cpus.targets, cmd, ...args]] : [cmd, args];
  const child = spawn(file, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return { child, stop: () => stopChild(child) };
}

/**
 * Starts `bench/targets/<script>` and waits for its ready line. Resolves with
 * `{ absent }` when the target says it cannot run here.
 */
export async function startTarget(script, args = [], { nodeArgs = [], timeoutMs = 30_000 } = {}) {
  const { child, stop } = startProcess(process.execPath, [...nodeArgs, TARGETS + script, ...args]);
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const messages = new EventEmitter(); // the target's JSON lines
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      messages.emit('message', JSON.parse(line));
    } catch {
      // a stray log line
    }
  });
  /** The next message that `match`es, from now on; rejects when the target exits or is silent for `ms`. */
  const next = (match, ms = timeoutMs) =>
    new Promise((resolve, reject) => {
      const done = (err, msg) => {
        clearTimeout(timer);
        messages.off('message', onMessage);
        child.off('exit', onExit); // a target asked for its memory often would pile them up
        return err ? reject(err) : resolve(msg);
      };
      const onMessage = (msg) => match(msg) && done(undefined, msg);
      const onExit = (code) =>
        done(new Error(`${script} exited (${code}) ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      const timer = setTimeout(() => done(new Error(`${script}: no answer in ${ms} ms\n${stderr}`)), ms);
      messages.on('message', onMessage);
      child.once('exit', onExit);
    });

  const first = await next((m) => m.ready || m.absent).catch((error) => ({ error }));
  if (!first.ready) await stop();
  if (first.error) throw first.error;
  if (first.absent) return { absent: first.absent };
  return {
    ...first,
    url: `http://127.0.0.1:${first.port}`,
    child,
    stop,
    /** Asks for a collected heap (SIGUSR2) and resolves with `{ rss, heapUsed, ... }`. */
    memory: async () => {
      const reply = next((m) => m.memory, 10_000);
      child.kill('SIGUSR2');
      return (await reply).memory;
    },
  };
}

function stopChild(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Kills every child still running; installed once for exit, ctrl-C and termination. */
export function killChildrenOnExit() {
  const killAll = () => {
    for (const child of live) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(sig, () => {
      killAll();
      process.stderr.write(`\nbench: ${sig}, targets stopped\n`);
      process.exit(130);
    });
  }
}
