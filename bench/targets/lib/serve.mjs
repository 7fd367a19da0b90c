// The contract between bench/run.mjs and every target: listen on an ephemeral loopback
// port, print one JSON line with the port, and leave cleanly on SIGTERM/SIGINT so that
// `node --cpu-prof` gets to write its profile.
import { once } from 'node:events';
import { getHeapSpaceStatistics } from 'node:v8';
import { mallocHeapBytes } from '../../../test/support/malloc-heap.mjs';

/** Prints `{"ready":true,"port":N,...}` once `server` listens on 127.0.0.1. */
export async function serve(server, { name, notes = [], onClose, ...extra } = {}) {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  untilStopped(async () => {
    server.closeAllConnections?.();
    server.close();
    await onClose?.();
  });
  report({ ready: true, name, port, pid: process.pid, notes, ...extra });
}

/**
 * Runs `close` and exits on SIGTERM/SIGINT or when the runner goes away (crash, kill -9:
 * no listener may be left behind); SIGUSR2 reports a collected heap (soak, --expose-gc).
 */
export function untilStopped(close) {
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    try {
      await close();
    } finally {
      process.exit(0);
    }
  };
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, stop);
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    // Per V8 space, bytes used and bytes V8 holds for it: which part of the heap a rise is in.
    const spaces = getHeapSpaceStatistics().map((s) => [
      s.space_name,
      { used: s.space_used_size, size: s.space_size },
    ]);
    const memory = { ...process.memoryUsage(), mallocHeap: mallocHeapBytes(), gc: Boolean(globalThis.gc) };
    report({ memory: { ...memory, spaces: Object.fromEntries(spaces) } });
  });
  process.stdin.on('end', stop).on('error', stop).resume();
}

/** A target that cannot run in this tree says why instead of failing; the row shows "absent: why". */
export function absent(reason) {
  report({ absent: reason });
  process.exit(0);
}

export function report(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

/** `--name value` pairs of the target's argv. */
export function targetArgs(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--'))
      out[argv[i].slice(2)] = argv[i + 1]?.startsWith('--') ? 'true' : (argv[++i] ?? 'true');
  }
  return out;
}
