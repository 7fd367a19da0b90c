// `npm run bench:dispatch [-- CHECKOUT...]`: the core and both plugins in one process, no
// HTTP, no other process: microseconds per `rpc.dispatch` of the hot calls (getRoutes,
// 1 and 256 signatures from memory). The socket and the kernel are out of the figure, so
// it moves far less with the machine's load than the HTTP rows of `npm run bench` do:
// the tool for "did this change to parse, validate, dispatch or the chain make a call
// cheaper". Given other checkouts (built, with node_modules), their runs alternate with
// this one's, each in a fresh process, and the best of the runs is compared.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchRoutes, benchSignatures } from './targets/lib/fixtures.mjs';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_DISPATCH_RUNS ?? 4);
const STATUS =
  '{"confirmationStatus":"finalized","confirmations":null,"err":null,"slot":212,"status":{"Ok":null}}';

/** One process's figures for the checkout at `root`: the best of `rounds` timed loops per case. */
async function measure(root, rounds = 3) {
  const load = (pkg) => import(pathToFileURL(`${root}/packages/${pkg}/dist/index.js`).href);
  const [core, { signatureStatusesPlugin }, { routesPlugin }] = await Promise.all(
    ['core', 'signature-statuses', 'routes'].map(load),
  );
  // The upstream is asked once, to fill the memory cache; every timed call is answered from memory.
  const upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const call = JSON.parse(body);
      const value = call.params[0].map(() => STATUS).join(',');
      res.end(
        `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.1","slot":300},"value":[${value}]},"id":${JSON.stringify(call.id)}}`,
      );
    });
  });
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const rpc = core.createRpc({
    logger: core.createLogger({ level: 'silent' }),
    plugins: [
      signatureStatusesPlugin({ upstreams: [{ url: `http://127.0.0.1:${upstream.address().port}` }] }),
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
  for (const [name, text, n] of cases) {
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
  upstream.close();
  return out;
}

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
