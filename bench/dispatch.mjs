// `npm run bench:dispatch [-- CHECKOUT...]`: the core and both plugins in one process, no
// HTTP, no other process: microseconds per `rpc.dispatch` of the hot calls (getRoutes,
// 1 and 256 signatures from memory), and our CPU per call of 1 and 256 fresh signatures
// through an upstream (measureFresh). The socket and the kernel are out of the figure, so
// it moves far less with the machine's load than the HTTP rows of `npm run bench` do:
// the tool for "did this change to parse, validate, dispatch or the chain make a call
// cheaper". Given other checkouts (built, with node_modules), their runs alternate with
// this one's, each in a fresh process, and the best of the runs is compared.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshSignatureBodies } from './lib/requests.mjs';
import { benchRoutes, benchSignatures } from './targets/lib/fixtures.mjs';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_DISPATCH_RUNS ?? 4);
/** BENCH_DISPATCH_CASES=fresh-256,memory-1 runs only those (to profile one with --cpu-prof). */
const ONLY = process.env.BENCH_DISPATCH_CASES?.split(',');
const wanted = (name) => !ONLY || ONLY.includes(name);
const STATUS =
  '{"confirmationStatus":"finalized","confirmations":null,"err":null,"slot":212,"status":{"Ok":null}}';

/** One process's figures for the checkout at `root`: the best of `rounds` timed loops per case. */
async function measure(root, rounds = 3) {
  const load = (pkg) => import(pathToFileURL(`${root}/packages/${pkg}/dist/index.js`).href);
  const [core, { signatureStatusesPlugin }, { routesPlugin }] = await Promise.all(
    ['core', 'signature-statuses', 'routes'].map(load),
  );
  // The upstream is asked once, to fill the memory cache; every timed call is answered from memory.
  const upstream = await startUpstream(STATUS);
  const rpc = core.createRpc({
    logger: core.createLogger({ level: 'silent' }),
    plugins: [
      signatureStatusesPlugin({ upstreams: [{ url: upstream.url }] }),
      routesPlugin({ routes: benchRoutes(10) }),
    ],
  });
  await rpc.start();
  const sigs = benchSignatures(256);
  const call = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const cases = [
    ['getRoutes', call('getRoutes', []), 60_000],
    ['memory-1', call('getSignatureStatuses', [[sigs[0]]]), 60_000],
    ['memory-256', call('getSignatureStatuses', [sigs]), 3_000],
  ];
  await rpc.dispatch(cases[2][1]);
  const out = {};
  for (const [name, text, n] of cases.filter(([name]) => wanted(name))) {
    for (let i = 0; i < n / 4; i++) await rpc.dispatch(text);
    let best = Infinity;
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await rpc.dispatch(text);
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000 / n);
    }
    out[name] = best;
  }
  await rpc.stop();
  upstream.kill();
  for (const [name, perCall, calls] of [
    ['fresh-1', 1, 4000],
    ['fresh-256', 256, 500],
  ]) {
    if (wanted(name)) out[name] = await measureFresh(core, signatureStatusesPlugin, rounds, perCall, calls);
  }
  return out;
}

/**
 * Our CPU per call of `perCall` signatures nobody asked before, through memory, a SQLite
 * store and an upstream in another process that knows none of them (as validator A answers
 * fresh ones): parse, validate, the chain, the coalescer, the upstream request and its
 * answer. CPU time, not wall time, so the upstream's own work and the wait are out;
 * 16 calls at a time, so the coalescer's tables hold several calls as under load (and
 * one-signature calls of the same turn share an upstream request, as clients polling for
 * their transactions do).
 */
async function measureFresh(core, signatureStatusesPlugin, rounds, perCall, calls) {
  // Nobody knows them, as validator A answers fresh signatures.
  const upstream = await startUpstream('null');
  const dir = mkdtempSync(join(tmpdir(), 'bench-dispatch-'));
  const rpc = core.createRpc({
    logger: core.createLogger({ level: 'silent' }),
    plugins: [
      signatureStatusesPlugin({
        upstreams: [{ url: upstream.url }],
        store: { path: join(dir, 'statuses.sqlite') },
      }),
    ],
  });
  await rpc.start();
  const INFLIGHT = 16;
  // Made before any is timed: making them is not the call's work, nor is their garbage.
  const texts = freshSignatureBodies(calls * (rounds + 1), perCall);
  const run = async (from, to) => {
    let at = from;
    const worker = async () => {
      while (at < to) {
        const answer = await rpc.dispatch(texts[at++]);
        if (!answer.includes('"value":[null'))
          throw new Error(`fresh-${perCall}: unexpected answer ${answer.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: INFLIGHT }, worker));
  };
  await run(0, calls);
  let best = Infinity;
  for (let r = 1; r <= rounds; r++) {
    const before = process.cpuUsage();
    await run(r * calls, (r + 1) * calls);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / calls);
  }
  await rpc.stop();
  upstream.kill();
  rmSync(dir, { recursive: true, force: true });
  return best;
}

/**
 * An upstream in a process of its own (its CPU is not ours), answering every
 * getSignatureStatuses with `status` (JSON text) for each signature.
 */
async function startUpstream(status) {
  const child = spawn(process.execPath, ['-e', UPSTREAM, status], { stdio: ['ignore', 'pipe', 'ignore'] });
  process.once('exit', () => child.kill());
  const [port] = await once(child.stdout, 'data');
  return { url: `http://127.0.0.1:${Number(port)}`, kill: () => child.kill() };
}

const UPSTREAM = `
const status = process.argv[1];
const server = require('node:http').createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const call = JSON.parse(body);
    const value = call.params[0].map(() => status).join(',');
    res.end('{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.1","slot":300},"value":[' + value + ']},"id":' + JSON.stringify(call.id) + '}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port)));
`;

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await measure(process.argv[3])));
  process.exit(0);
}

const roots = [HERE.replace(/\/$/, ''), ...process.argv.slice(2)];
const best = roots.map(() => ({}));
for (let run = 0; run < RUNS; run++) {
  roots.forEach((root, i) => {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', root], {
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`${root}: ${child.stderr}`);
    for (const [name, us] of Object.entries(JSON.parse(child.stdout))) {
      best[i][name] = Math.min(best[i][name] ?? Infinity, us);
    }
  });
}
console.log(`µs per rpc.dispatch, best of ${RUNS} runs (alternating checkouts, a fresh process each)`);
for (const name of Object.keys(best[0])) {
  const cells = roots.map((root, i) => {
    const us = best[i][name];
    const ratio = i === 0 ? '' : ` (${(us / best[0][name]).toFixed(2)}x this)`;
    return `${i === 0 ? 'this' : root}: ${us.toFixed(2)}${ratio}`;
  });
  console.log(`  ${name.padEnd(11)} ${cells.join('   ')}`);
}
