// `--rss-unknown`: the server's memory while it looks up signatures nobody knows. The
// reference server with production settings and its default statuses chain (100,000-entry
// memory cache, SQLite store) in front of the upstream stand-in answering null for every
// signature; every call asks for fresh random signatures. RSS, the JS heap after a
// forced GC, the malloc heap and V8's spaces are read after 100k, 200k, 400k, 800k and 1.6M
// signatures, for 1 and for 256 signatures per call.
//   --per-call 1,256     signatures per call (each a separate server)
//   --signatures N       the last reading (default 1600000); readings at N/16, N/8, N/4, N/2, N
//   --idle S             one more reading after S seconds without calls (default 30): what V8's
//                           memory reducer gives back when the server is idle
//   --snapshots DIR      a heap snapshot at each reading, and the constructors whose count
//                           grew between the second reading and the last
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { targetArgs } from '../targets/lib/serve.mjs';
import { measureLoad } from './load.mjs';
import { startTarget } from './processes.mjs';
import { freshSignatureBodies } from './requests.mjs';
import { mb, residentBreakdown } from './proc.mjs';

const READ_AT = [1 / 16, 1 / 8, 1 / 4, 1 / 2, 1];
const log = (line) => process.stderr.write(`${line}\n`);

async function measure(perCall, { total, idle, snapshotDir }) {
  const snapshots = snapshotDir && `${snapshotDir}/per-call-${perCall}`;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  const nodeArgs = ['--expose-gc'];
  const helper = await startTarget('upstream-standin.mjs', ['--unknown', 'all']);
  const server = ['--settings', 'production', '--statuses', 'memory', '--upstream', helper.url];
  if (snapshots) process.env.BENCH_HEAP_SNAPSHOTS = snapshots;
  const target = await startTarget('server.mjs', server, { nodeArgs });
  delete process.env.BENCH_HEAP_SNAPSHOTS;
  if (target.absent) throw new Error(`reference server absent: ${target.absent}`);
  const rows = [];
  try {
    let done = 0;
    for (const share of READ_AT) {
      const calls = Math.round((total * share - done) / perCall);
      // Each body once: `calls` fresh bodies, rotated through exactly once.
      const requests = [{ path: '/', bodies: freshSignatureBodies(calls, perCall) }];
      const run = await measureLoad(target.url, requests, { connections: 20, pipelining: 1, amount: calls });
      if (run.errors + run.timeouts + run.non2xx) throw new Error(`failed calls: ${JSON.stringify(run)}`);
      done += calls * perCall;
      rows.push(await reading(target, perCall, done));
      if (snapshots) await written(`${snapshots}/${String(rows.length).padStart(3, '0')}.heapsnapshot`);
    }
    if (idle > 0) {
      await sleep(idle * 1000);
      rows.push(await reading(target, perCall, done, `${idle} s idle`));
    }
  } finally {
    await target.stop(); // after the last snapshot is written: SIGTERM waits for it
    await helper.stop();
  }
  if (snapshots) {
    const files = readdirSync(snapshots)
      .filter((f) => f.endsWith('.heapsnapshot'))
      .sort();
    const last = files[READ_AT.length - 1];
    const grown = grownConstructors(`${snapshots}/${files[1]}`, `${snapshots}/${last}`);
    log(`${perCall}/call, constructors grown from reading 2 to ${READ_AT.length}: ${JSON.stringify(grown)}`);
  }
  return rows;
}

/** Waits for the target to finish writing a heap snapshot (it renames it when done). */
async function written(file) {
  while (!existsSync(file)) await sleep(200);
}

async function reading(target, perCall, signatures, when = 'loaded') {
  const memory = await target.memory();
  const resident = residentBreakdown(target.pid);
  const old = memory.spaces.old_space;
  log(
    `${perCall}/call, ${signatures.toLocaleString('en-US')} signatures, ${when}: RSS ${mb(memory.rss)} MB, ` +
      `JS heap ${mb(memory.heapUsed)} (of ${mb(memory.heapTotal)}), old space ${mb(old.used)} of ${mb(old.size)}, ` +
      `malloc heap ${mb(memory.mallocHeap)}, external ${mb(memory.external)} MB; settled: ` +
      Object.entries(resident ?? {})
        .map(([k, v]) => `${k} ${mb(v)}`)
        .join(', '),
  );
  return { perCall, signatures, when, ...memory, resident };
}

/** A heap snapshot's nodes counted by constructor: `{ "<type>:<name>": { count, bytes } }`. */
function constructorCounts(file) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const counts = {};
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = types[nodes[i + type]];
    // Strings and numbers are named by their value: one bucket per kind.
    const key = ['object', 'closure', 'native'].includes(kind) ? `${kind}:${strings[nodes[i + name]]}` : kind;
    const c = (counts[key] ??= { count: 0, bytes: 0 });
    c.count += 1;
    c.bytes += nodes[i + size];
  }
  return counts;
}

/** The constructors whose count grew from `before` to `after` by more than 100, most first. */
function grownConstructors(before, after) {
  const [a, b] = [constructorCounts(before), constructorCounts(after)];
  return Object.entries(b)
    .map(([key, { count, bytes }]) => ({
      key,
      count: count - (a[key]?.count ?? 0),
      bytes: bytes - (a[key]?.bytes ?? 0),
    }))
    .filter((d) => d.count > 100)
    .sort((x, y) => y.count - x.count)
    .slice(0, 15);
}

export async function rssUnknown(argv) {
  const args = targetArgs(argv);
  const settings = {
    total: Number(args.signatures ?? 1_600_000),
    idle: Number(args.idle ?? 30),
    snapshotDir: args.snapshots,
  };
  const readings = [];
  for (const perCall of (args['per-call'] ?? '1,256').split(',').map(Number))
    readings.push(...(await measure(perCall, settings)));
  process.stdout.write(JSON.stringify(readings) + '\n');
  return 0;
}
