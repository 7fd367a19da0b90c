// Ours, embedded: createRpc + routesPlugin (10 inline nodes) + signatureStatusesPlugin
// (memory cache in front of `--upstream`, which the runner primes it through) mounted at
// /rpc in a host Express app that has its own parser and routes, as the embedding docs show.
import { createRpc } from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { routesPlugin } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import express from 'express';
import http from 'node:http';
import { benchLogger, LOGGING_NOTE } from './lib/bench-logger.mjs';
import { benchRoutes } from './lib/fixtures.mjs';
import { serve, targetArgs } from './lib/serve.mjs';

const { upstream } = targetArgs();
// Which layer answered and what the upstream calls did: the runner reads these from
// GET /__bench/stats to prove a "memory" row never left the process.
const stats = { layers: {}, upstreamCalls: {} };
const rpc = createRpc({
  plugins: [
    routesPlugin({ routes: benchRoutes(10) }),
    signatureStatusesPlugin({
      memory: {},
      store: false,
      upstreams: upstream ? [{ url: upstream }] : [],
      onLookup: (layer, n) => (stats.layers[layer] = (stats.layers[layer] ?? 0) + n),
      onUpstreamCall: (_url, outcome) =>
        (stats.upstreamCalls[outcome] = (stats.upstreamCalls[outcome] ?? 0) + 1),
    }),
  ],
  logger: benchLogger(),
});
await rpc.start();

const STATS_PATH = '/__bench/stats';
const app = express();
app.use(express.json({ limit: '1mb' }));
app.get('/healthz', (_req, res) => res.send('ok'));
app.get(STATS_PATH, (_req, res) => res.json(stats));
app.use('/rpc', expressRpc(rpc));
await serve(http.createServer(app), {
  name: 'embedded in Express, memory',
  notes: [LOGGING_NOTE, `statuses: memory${upstream ? ` via ${upstream}` : ''}`],
  statsPath: STATS_PATH,
  onClose: () => rpc.stop(),
});
