// `--rss-unknown`: the server's memory while it looks up signatures nobody knows. The
// reference server with production settings and its default statuses chain (100,000-entry
// memory cache, SQLite store) in front of the upstream stand-in answering null for every
// signature; every call asks for fresh random signatures. RSS, the JS heap after a
// forced GC, the malloc heap and V8's old space are read after N/16, N/8, N/4, N/2 and N
// signatures, for 1 and for 256 signatures per call.
//   --per-call 1,256     signatures per call (each a separate server)
//   --signatures N       the last reading (default 1600000)
//   --idle S             one more reading after S seconds without calls (default 30): what V8's
//                           memory reducer gives back when the server is idle
import { setTimeout as sleep } from 'node:timers/promises';
import { targetArgs } from '../targets/lib/serve.mjs';
import { measureLoad } from './load.mjs';
import { startTarget } from './processes.mjs';
import { freshSignatureBodies } from './requests.mjs';
import { mb, residentBytes } from './proc.mjs';

const READ_AT = [1 / 16, 1 / 8, 1 / 4, 1 / 2, 1];
const log = (line) => process.stderr.write(`${line}\n`);

async function reading(target, perCall, signatures, when = 'loaded') {
  const memory = await target.memory();
  await sleep(1000); // then the settled resident memory (proc.mjs residentBytes)
  const resident = residentBytes(target.pid);
  const old = memory.spaces.old_space;
  log(
    `${perCall}/call, ${signatures.toLocaleString('en-US')} signatures, ${when}: RSS ${mb(memory.rss)} MB, ` +
      `JS heap ${mb(memory.heapUsed)} (of ${mb(memory.heapTotal)}), old space ${mb(old.used)} of ${mb(old.size)}, ` +
      `malloc heap ${mb(memory.mallocHeap)}, external ${mb(memory.external)} MB; settled RSS ${mb(resident)} MB`,
  );
  return { perCall, signatures, when, ...memory, resident };
}

async function measure(perCall, { total, idle }) {
  const helper = await startTarget('upstream-standin.mjs', ['--unknown', 'all']);
  const server = ['--settings', 'production', '--statuses', 'memory', '--upstream', helper.url];
  const target = await startTarget('server.mjs', server, { nodeArgs: ['--expose-gc'] });
  if (target.absent) throw new Error(`reference server absent: ${target.absent}`);
  const rows = [];
  try {
    let done = 0;
    for (const share of READ_AT) {
      const calls = Math.round((total * share - done) / perCall);
      // Each body once: `calls` fresh bodies, rotated through exactly once.
      const requests = [{ path: '/', bodies: freshSignatureBodies(calls, perCall) }];
      const run = await measureLoad(target.url, requests, { connections: 20, amount: calls });
      if (run.errors + run.timeouts + run.non2xx) throw new Error(`failed calls: ${JSON.stringify(run)}`);
      done += calls * perCall;
      rows.push(await reading(target, perCall, done));
    }
    if (idle > 0) {
      await sleep(idle * 1000);
      rows.push(await reading(target, perCall, done, `${idle} s idle`));
    }
  } finally {
    await target.stop();
    await helper.stop();
  }
  return rows;
}

export async function rssUnknown(argv) {
  const args = targetArgs(argv);
  const settings = { total: Number(args.signatures ?? 1_600_000), idle: Number(args.idle ?? 30) };
  const readings = [];
  for (const perCall of (args['per-call'] ?? '1,256').split(',').map(Number))
    readings.push(...(await measure(perCall, settings)));
  process.stdout.write(JSON.stringify(readings) + '\n');
  return 0;
}
