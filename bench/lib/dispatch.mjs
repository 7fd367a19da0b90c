// In-process cases: `rpc.dispatch` with no HTTP and no other process, timed as our CPU per
// call (user + system). The socket and the kernel are out of the figure, so it moves far less
// with the machine's load than the HTTP rows. Rigs are timed in chunks that alternate between
// them (A B, then B A, ...): a machine that slows down or speeds up (this VM moved ±20% between
// runs minutes apart) moves neighbouring chunks alike, so a ratio is read per pair of chunks,
// and garbage a chunk leaves for the next one is spread evenly. (A full GC before each chunk
// was tried: the collector's background threads ran into the chunk, doubling the spread.)
//   --dispatch [CHECKOUT...]: getRoutes, 1 and 256 signatures from memory, 1 and 256 fresh
//     signatures through an upstream that knows none of them; other checkouts (built, each
//     with node_modules of its own) are loaded into the same child process and compared.
//   The guard figure (main run): getRoutes with a guard that admits against none; goal < 1 µs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchRoutes, benchSignatures } from '../targets/lib/fixtures.mjs';
import { startTarget } from './processes.mjs';
import { freshSignatureBodies, getRoutes, getSignatureStatuses, randomSignatureTexts } from './requests.mjs';
import { median } from './summary.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const env = process.env;
// BENCH_DISPATCH_CASES=fresh-256,memory-1 runs only those (to profile one with --cpu-prof);
// BENCH_DISPATCH_STORE_ROWS fills the fresh cases' store first, as a store that has kept a
// while of history is (a deeper B-tree to walk for each signature it lacks).
const wanted = (name) => !env.BENCH_DISPATCH_CASES || env.BENCH_DISPATCH_CASES.split(',').includes(name);
const CHUNKS = Number(env.BENCH_DISPATCH_CHUNKS ?? 40);
const STORE_ROWS = Number(env.BENCH_DISPATCH_STORE_ROWS ?? 0);
/** Fresh calls in flight: the coalescer's tables hold several calls, as under load. */
const INFLIGHT = 16;
export const GUARD_GOAL_US = 1;

const load = async (root) => {
  const [core, { signatureStatusesPlugin, StatusStore }, { routesPlugin }] = await Promise.all(
    ['core', 'signature-statuses', 'routes'].map(
      (pkg) => import(pathToFileURL(`${root}/packages/${pkg}/dist/index.js`).href),
    ),
  );
  return { core, signatureStatusesPlugin, routesPlugin, StatusStore };
};

async function started(core, plugins) {
  const rpc = core.createRpc({ logger: core.createLogger({ level: 'silent' }), plugins });
  await rpc.start();
  return rpc;
}

/** `calls` dispatches of `text`, one after the other. */
const dispatchEach = (text, calls) => async (rpc) => {
  for (let i = 0; i < calls; i++) await rpc.dispatch(text);
};

/** Our CPU per call in µs while `work()` makes `calls` calls. */
async function cpuPerCall(work, calls) {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

/**
 * `work(rig, i, k)` once per rig unmeasured (k = -1), then `chunks` chunks of `calls` calls
 * per rig, the order rotating. Per rig: its µs per call of each chunk, in the order measured.
 */
async function alternatingChunks(rigs, chunks, calls, work) {
  for (const [i, rig] of rigs.entries()) await work(rig, i, -1);
  const out = rigs.map(() => []);
  for (let k = 0; k < chunks; k++) {
    for (let j = 0; j < rigs.length; j++) {
      const i = (j + k) % rigs.length;
      out[i].push(await cpuPerCall(() => work(rigs[i], i, k), calls));
    }
  }
  return out;
}

/** A store file of STORE_ROWS random finalized statuses, made once per process and copied for each rig. */
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

/**
 * getSignatureStatuses with a SQLite store of its own in front of an upstream that knows no
 * signature (as validator A answers fresh ones): `run(texts)` dispatches the bodies 16 at a
 * time, so one-signature calls of the same turn share an upstream request, as clients polling
 * for their transactions do.
 */
async function freshRig({ core, signatureStatusesPlugin, StatusStore }, upstreamUrl, perCall) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dispatch-'));
  const path = join(dir, 'statuses.sqlite');
  if (STORE_ROWS > 0) filledStore(StatusStore, path);
  const rpc = await started(core, [
    signatureStatusesPlugin({ upstreams: [{ url: upstreamUrl }], store: { path } }),
  ]);
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
      await Promise.all(Array.from({ length: INFLIGHT }, worker));
    },
    async stop() {
      await rpc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every case of every checkout in this process: per case and checkout, the µs per call of each chunk. */
async function pairedMeasure(roots) {
  const checkouts = [];
  for (const root of roots) checkouts.push(await load(root));
  const out = {};
  const known = await startTarget('upstream-standin.mjs');
  const sigs = benchSignatures(256);
  const memoryCases = [
    ['getRoutes', getRoutes(), 60_000],
    ['memory-1', getSignatureStatuses([sigs[0]]), 60_000],
    ['memory-256', getSignatureStatuses(sigs), 3_000],
  ];
  for (const [name, text, n] of memoryCases.filter(([name]) => wanted(name))) {
    // Both plugins, the memory cache holding `sigs` (the upstream asked once).
    const rpcs = [];
    for (const { core, signatureStatusesPlugin, routesPlugin } of checkouts) {
      const rpc = await started(core, [
        signatureStatusesPlugin({ upstreams: [{ url: known.url }] }),
        routesPlugin({ routes: benchRoutes(10) }),
      ]);
      await rpc.dispatch(getSignatureStatuses(sigs));
      rpcs.push(rpc);
    }
    out[name] = await alternatingChunks(rpcs, CHUNKS, n / 3, dispatchEach(text, n / 3));
    for (const rpc of rpcs) await rpc.stop();
  }
  await known.stop();
  const nobody = await startTarget('upstream-standin.mjs', ['--unknown', 'all']);
  for (const [name, perCall, calls] of [
    ['fresh-1', 1, 4000],
    ['fresh-256', 256, 500],
  ].filter(([name]) => wanted(name))) {
    const rigs = [];
    for (const checkout of checkouts) rigs.push(await freshRig(checkout, nobody.url, perCall));
    const chunk = calls / 5;
    // Each checkout its own signatures, made before any is timed (chunk -1 warms up).
    const pools = rigs.map(() => freshSignatureBodies(chunk * (CHUNKS + 1), perCall));
    out[name] = await alternatingChunks(rigs, CHUNKS, chunk, (rig, i, k) =>
      rig.run(pools[i].slice((k + 1) * chunk, (k + 2) * chunk)),
    );
    for (const rig of rigs) await rig.stop();
  }
  await nobody.stop();
  return out;
}

const quartiles = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return [sorted[Math.floor((sorted.length - 1) / 4)], sorted[Math.ceil(((sorted.length - 1) * 3) / 4)]];
};

/** `--dispatch [CHECKOUT...]`: alone, this checkout's figures; with others, each compared with this one. */
export async function dispatchMode(args) {
  if (args[0] === '--paired-child') {
    process.stdout.write(JSON.stringify(await pairedMeasure(args.slice(1))));
    return 0;
  }
  const roots = [ROOT, ...args];
  const child = [`${ROOT}/bench/run.mjs`, '--dispatch', '--paired-child', ...roots];
  const run = spawnSync(process.execPath, child, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`--dispatch: ${run.stderr}`);
  console.log(
    `our CPU µs per rpc.dispatch, median of ${CHUNKS} chunks per checkout, all in one process, chunks alternating ` +
      'between checkouts; ratio: median over chunk pairs of other ÷ this [quartiles]',
  );
  for (const [name, chunks] of Object.entries(JSON.parse(run.stdout))) {
    const cells = roots.map((root, i) => {
      const us = median(chunks[i]).toFixed(2);
      if (i === 0) return `this: ${us}`;
      const ratios = chunks[i].map((x, k) => x / chunks[0][k]);
      const [q1, q3] = quartiles(ratios);
      return `${root}: ${us} (${median(ratios).toFixed(3)}x this [${q1.toFixed(2)}-${q3.toFixed(2)}])`;
    });
    console.log(`  ${name.padEnd(11)} ${cells.join('   ')}`);
  }
  return 0;
}

/** The guard figure: `{ rounds, calls, withoutUs, withUs, ratio, addedUs, met }`, or `{ error }`. */
export async function measureGuard(log, { rounds = 40, calls = 15_000 } = {}) {
  const n = calls.toLocaleString('en-US');
  log(`guard: ${rounds} rounds of ${n} getRoutes dispatched, without and with a guard`);
  try {
    const { core, routesPlugin } = await load(ROOT);
    const routes = () => [routesPlugin({ routes: benchRoutes(10) })];
    const rigs = [await started(core, routes()), await started(core, routes())];
    const denied = new Set(['adminOnly']);
    // Reads the method and the host's context, as a real guard does, and admits.
    rigs[1].guard((ctx) => {
      if (denied.has(ctx.method) && ctx.host === undefined) throw new Error('refused');
    });
    const work = dispatchEach(getRoutes(), calls);
    const [without, withGuard] = await alternatingChunks(rigs, rounds, calls, work);
    await Promise.all(rigs.map((rpc) => rpc.stop()));
    const added = without.map((a, k) => withGuard[k] - a);
    const [withoutUs, withUs, addedUs] = [without, withGuard, added].map(median);
    const ratio = median(without.map((a, k) => withGuard[k] / a));
    return { rounds, calls, withoutUs, withUs, ratio, addedUs, met: addedUs < GUARD_GOAL_US };
  } catch (err) {
    return { error: err.message };
  }
}

/** The guard's lines under the table. */
export function guardLines(g) {
  const head =
    'guard (a guard that admits, against none): getRoutes through rpc.dispatch in the bench process, CPU time:';
  if (g.error) return `${head}\n  not measured: ${g.error}`;
  return [
    head,
    `  ${g.withoutUs.toFixed(2)} µs per call without, ${g.withUs.toFixed(2)} with (${g.ratio.toFixed(3)}x), ` +
      `${g.rounds} alternating rounds of ${g.calls.toLocaleString('en-US')} calls`,
    `  the guard costs ${g.addedUs >= 0 ? '+' : ''}${g.addedUs.toFixed(3)} µs per call ` +
      `(goal < ${GUARD_GOAL_US} µs: ${g.met ? 'met' : 'MISSED'})`,
  ].join('\n');
}
