// The contract between bench/run.mjs and every target: listen on an ephemeral loopback
// port, print one JSON line with the port, and leave cleanly on SIGTERM/SIGINT so that
// `node --cpu-prof` gets to write its profile.
import { once } from 'node:events';

/** Prints `{"ready":true,"port":N,...}` once `server` listens on 127.0.0.1. */
export async function serve(server, { name, notes = [], onClose, ...extra } = {}) {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    server.closeAllConnections?.();
    server.close();
    try {
      await onClose?.();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
  // Soak mode asks for a collected heap before reading RSS (needs --expose-gc).
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    report({
      memory: { rss: m.rss, heapUsed: m.heapUsed, external: m.external, gc: Boolean(globalThis.gc) },
    });
  });
  // The parent going away (crash, kill -9) must not leave a listener behind.
  process.stdin.on('end', close).on('error', close).resume();
  report({ ready: true, name, port, pid: process.pid, notes, ...extra });
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
