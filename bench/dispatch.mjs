// `npm run bench:dispatch [-- CHECKOUT...]`: the core and both plugins in one process, no
// HTTP, no other process: microseconds per `rpc.dispatch` of the hot calls (getRoutes,
// 1 and 256 signatures from memory), and our CPU per call of 1 and 256 fresh signatures
// through an upstream (freshRig). The socket and the kernel are out of the figure, so
// it moves far less with the machine's load than the HTTP rows of `npm run bench` do:
// the tool for "did this change to parse, validate, dispatch or the chain make a call
// cheaper". All in one child process (pairedMeasure), in chunks; given other checkouts
// (built, each with node_modules of its own), chunks of calls alternate between the
// checkouts, and each checkout's figure is compared chunk by chunk with this one's.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshSignatureBodies, randomSignatureTexts } from './lib/requests.mjs';
import { median } from './lib/summary.mjs';
import { benchRoutes, benchSignatures } from './targets/lib/fixtures.mjs';

const HERE = fileURLToPath(new URL('..', import.meta.url));
/** BENCH_DISPATCH_CASES=fresh-256,memory-1 runs only those (to profile one with --cpu-prof). */
const ONLY = process.env.BENCH_DISPATCH_CASES?.split(',');
const wanted = (name) => !ONLY || ONLY.includes(name);
const STATUS =
  '{"confirmationStatus":"finalized","confirmations":null,"err":null,"slot":212,"status":{"Ok":null}}';

const RUNNER_INFLIGHT = 16;
/** Paired mode: chunks per checkout and case (BENCH_DISPATCH_CHUNKS). */
const CHUNKS = Number(process.env.BENCH_DISPATCH_CHUNKS ?? 40);

/**
 * Finalized statuses in the store of the fresh cases before they start
 * (BENCH_DISPATCH_STORE_ROWS): a store that has kept a while of history, as a router's does,
 * makes each read of a signature it lacks a walk down a deeper B-tree.
 */
const STORE_ROWS = Number(process.env.BENCH_DISPATCH_STORE_ROWS ?? 0);

const load = async (root) => {
  const [core, { signatureStatusesPlugin, StatusStore }, { routesPlugin }] = await Promise.all(
    ['core', 'signature-statuses', 'routes'].map(
      (pkg) => import(pathToFileURL(`${root}/packages/${pkg}/dist/index.js`).href),
    ),
  );
  return { core, signatureStatusesPlugin, routesPlugin, StatusStore };
};

/** A store file holding STORE_ROWS random finalized statuses, made once per process and copied for each rig. */
let storeTemplate;
function filledStore(StatusStore, path) {
  if (!storeTemplate) {
    storeTemplate = join(mkdtempSync(join(tmpdir(), 'bench-store-')), 'template.sqlite');
    const store = StatusStore.open(storeTemplate);
    for (let at = 0; at < STORE_ROWS; at += 10_000) {
      const signatures = randomSignatureTexts(Math.min(10_000, STORE_ROWS - at));
      store.putFinalized(signatures.map((signature, i) => ({ signature, slot: at + i, err: null })));
    }
    store.close();
    process.once('exit', () => rmSync(dirname(storeTemplate), { recursive: true, force: true }));
  }
  copyFileSync(storeTemplate, path);
}

const call = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** The calls answered from memory: name, body, calls per timed loop. */
const memoryCases = (sigs) =>
  [
    ['getRoutes', call('getRoutes', []), 60_000],
    ['memory-1', call('getSignatureStatuses', [[sigs[0]]]), 60_000],
    ['memory-256', call('getSignatureStatuses', [sigs]), 3_000],
  ].filter(([name]) => wanted(name));

/** The calls through the upstream: name, signatures per call, calls per timed loop. */
const freshCases = [
  ['fresh-1', 1, 4000],
  ['fresh-256', 256, 500],
].filter(([name]) => wanted(name));

/** Both plugins, the memory cache holding `sigs` (the upstream asked once): every timed call is answered from memory. */
async function memoryRig({ core, signatureStatusesPlugin, routesPlugin }, upstreamUrl, sigs) {
  const rpc = core.createRpc({
    logger: core.createLogger({ level: 'silent' }),
    plugins: [
      signatureStatusesPlugin({ upstreams: [{ url: upstreamUrl }] }),
      routesPlugin({ routes: benchRoutes(10) }),
    ],
  });
  await rpc.start();
  await rpc.dispatch(call('getSignatureStatuses', [sigs]));
  return rpc;
}

/**
 * getSignatureStatuses in front of an upstream that knows no signature (as validator A
 * answers fresh ones), with a SQLite store of its own: `run(texts)` dispatches the bodies
 * 16 at a time, so the coalescer's tables hold several calls as under load (and
 * one-signature calls of the same turn share an upstream request, as clients polling for
 * their transactions do).
 */
async function freshRig({ core, signatureStatusesPlugin, StatusStore }, upstreamUrl, perCall) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dispatch-'));
  if (STORE_ROWS > 0) filledStore(StatusStore, join(dir, 'statuses.sqlite'));
  const rpc = core.createRpc({
    logger: core.createLogger({ level: 'silent' }),
    plugins: [
      signatureStatusesPlugin({
        upstreams: [{ url: upstreamUrl }],
        store: { path: join(dir, 'statuses.sqlite') },
      }),
    ],
  });
  await rpc.start();
  return {
    async run(texts) {
      let at = 0;
      const worker = async () => {
        while (at < texts.length) {
          const answer = await rpc.dispatch(texts[at++]);
          if (!answer.includes('"value":[null'))
            throw new Error(`fresh-${perCall}: unexpected answer ${answer.slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: RUNNER_INFLIGHT }, worker));
    },
    async stop() {
      await rpc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Our CPU (user + system, all threads) per call while `work` makes `calls` calls, in µs. */
async function cpuPerCall(work, calls) {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

/**
 * Every checkout in this one process, each case timed in chunks that alternate between the
 * checkouts (A B, then B A, ...), our CPU per call in each chunk: a machine that slows down
 * or speeds up (this VM's figures moved ±20% between runs minutes apart) moves neighbouring
 * chunks alike, so the ratio of two checkouts is read per pair of chunks, not from two runs
 * at different moments. Garbage a chunk leaves may be collected in the next one, which may
 * be another checkout's; alternating the order spreads that evenly. (A full GC before each
 * chunk was tried: the collector's background threads then ran into the chunk, and the
 * spread of the ratios doubled.) Per case and checkout: the µs per call of each chunk, in
 * the order measured.
 */
async function pairedMeasure(roots) {
  const checkouts = [];
  for (const root of roots) checkouts.push(await load(root));
  const order = (k) => roots.map((_, i) => (i + k) % roots.length);
  const chunked = async (rigs, chunkCalls, work) => {
    const perChunk = roots.map(() => []);
    for (let i = 0; i < rigs.length; i++) await work(rigs[i], i, -1);
    for (let k = 0; k < CHUNKS; k++) {
      for (const i of order(k)) {
        perChunk[i].push(await cpuPerCall(() => work(rigs[i], i, k), chunkCalls));
      }
    }
    return perChunk;
  };
  const out = {};
  const known = await startUpstream(STATUS);
  const sigs = benchSignatures(256);
  for (const [name, text, n] of memoryCases(sigs)) {
    const rpcs = [];
    for (const checkout of checkouts) rpcs.push(await memoryRig(checkout, known.url, sigs));
    const chunkCalls = n / 3;
    out[name] = await chunked(rpcs, chunkCalls, async (rpc) => {
      for (let i = 0; i < chunkCalls; i++) await rpc.dispatch(text);
    });
    for (const rpc of rpcs) await rpc.stop();
  }
  known.kill();
  const nobody = await startUpstream('null');
  for (const [name, perCall, calls] of freshCases) {
    const rigs = [];
    for (const checkout of checkouts) rigs.push(await freshRig(checkout, nobody.url, perCall));
    const chunkCalls = calls / 5;
    // Each checkout its own signatures, made before any is timed (chunk -1 warms up).
    const pools = rigs.map(() => freshSignatureBodies(chunkCalls * (CHUNKS + 1), perCall));
    out[name] = await chunked(rigs, chunkCalls, (rig, i, k) =>
      rig.run(pools[i].slice((k + 1) * chunkCalls, (k + 2) * chunkCalls)),
    );
    for (const rig of rigs) await rig.stop();
  }
  nobody.kill();
  return out;
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

const quartiles = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return [sorted[Math.floor((sorted.length - 1) / 4)], sorted[Math.ceil(((sorted.length - 1) * 3) / 4)]];
};

const child = (args) => {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
};

if (process.argv[2] === '--paired-child') {
  process.stdout.write(JSON.stringify(await pairedMeasure(process.argv.slice(3))));
  process.exit(0);
}

// Alone, this checkout's chunks only; with others, each compared with this one.
const roots = [HERE.replace(/\/$/, ''), ...process.argv.slice(2)];
const perChunk = child(['--paired-child', ...roots]);
console.log(
  `our CPU µs per rpc.dispatch, median of ${CHUNKS} chunks per checkout, all in one process, chunks alternating ` +
    'between checkouts; ratio: median over chunk pairs of other ÷ this [quartiles]',
);
for (const [name, chunks] of Object.entries(perChunk)) {
  const cells = roots.map((root, i) => {
    const us = median(chunks[i]).toFixed(2);
    if (i === 0) return `this: ${us}`;
    const ratios = chunks[i].map((x, k) => x / chunks[0][k]);
    const [q1, q3] = quartiles(ratios);
    return `${root}: ${us} (${median(ratios).toFixed(3)}x this [${q1.toFixed(2)}-${q3.toFixed(2)}])`;
  });
  console.log(`  ${name.padEnd(11)} ${cells.join('   ')}`);
}
