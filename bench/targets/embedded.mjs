// Ours, embedded: createRpc + routesPlugin (10 inline nodes, health off) +
// signatureStatusesPlugin mounted at /rpc in a host Express app that has its own parser
// and routes, as the README's embedding section shows. `--statuses` picks the answer chain:
//   memory   - in-process cache (the runner primes it through the upstream first),
//   sqlite   - no memory cache, SQLite store only (primed the same way),
//   upstream - no cache, no store: every call goes to `--upstream`.
// When a package is not usable yet the target reports "absent" and the row says why.
import { createRpc, expressRpc } from '@rollup-router/core';
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchLogger, LOGGING_NOTE } from './lib/bench-logger.mjs';
import { benchRoutes } from './lib/fixtures.mjs';
import { absent, serve, targetArgs } from './lib/serve.mjs';

const { statuses = 'memory', upstream } = targetArgs();

async function pluginFactory(pkg, exportName) {
  let mod;
  try {
    mod = await import(pkg);
  } catch (err) {
    absent(`${pkg} not usable yet (${err.code ?? err.message})`);
  }
  if (typeof mod[exportName] !== 'function') absent(`${pkg} does not export ${exportName}() yet`);
  return mod[exportName];
}

const routesPlugin = await pluginFactory('@rollup-router/routes', 'routesPlugin');
const signatureStatusesPlugin = await pluginFactory(
  '@rollup-router/signature-statuses',
  'signatureStatusesPlugin',
);

const dir = mkdtempSync(join(tmpdir(), 'rollup-router-bench-'));
const upstreams = upstream ? [{ url: upstream }] : [];
// Which layer answered and what the upstream calls did: the runner reads these from
// GET /__bench/stats to prove a "memory" row never left the process.
const stats = { layers: {}, upstreamCalls: {} };
const hooks = {
  onLookup: (layer, n) => (stats.layers[layer] = (stats.layers[layer] ?? 0) + n),
  onUpstreamCall: (_url, outcome) => (stats.upstreamCalls[outcome] = (stats.upstreamCalls[outcome] ?? 0) + 1),
};
// "No memory cache" has been spelled `false` and `{ maxEntries: 0 }` while the plugin is
// written; use whichever the plugin's options schema takes.
const MEMORY_OFF = [false, { maxEntries: 0 }];
const statusOptions = {
  memory: [{ memory: {}, store: false, upstreams }],
  sqlite: MEMORY_OFF.map((memory) => ({ memory, store: { path: join(dir, 'statuses.sqlite') }, upstreams })),
  upstream: MEMORY_OFF.map((memory) => ({ memory, store: false, upstreams })),
}[statuses];
if (!statusOptions) absent(`unknown --statuses ${statuses}`);

function statusesPlugin() {
  let last;
  for (const options of statusOptions) {
    try {
      return signatureStatusesPlugin({ ...options, ...hooks });
    } catch (err) {
      last = err;
      if (!/\/memory/.test(err.message)) break;
    }
  }
  throw last;
}

let rpc;
try {
  rpc = createRpc({
    plugins: [routesPlugin({ routes: benchRoutes(10) }), statusesPlugin()],
    logger: benchLogger(),
  });
  await rpc.start();
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  absent(`could not build the server: ${err.message}`);
}

const STATS_PATH = '/__bench/stats';
const sendStats = (res) => {
  const body = JSON.stringify(stats);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

// A host app with its own parser and routes; the RPC lives under /rpc.
const app = express();
app.use(express.json({ limit: '1mb' }));
app.get('/healthz', (_req, res) => res.send('ok'));
app.get(STATS_PATH, (_req, res) => sendStats(res));
app.use('/rpc', expressRpc(rpc));
await serve(http.createServer(app), {
  name: `embedded in Express, ${statuses}`,
  notes: [LOGGING_NOTE, `statuses: ${statuses}${upstream ? ` via ${upstream}` : ''}`],
  statsPath: STATS_PATH,
  onClose: async () => {
    await rpc.stop();
    rmSync(dir, { recursive: true, force: true });
  },
});
