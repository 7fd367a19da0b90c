// An existing Express 5 app (its own body parser, routes and error handler) that gains
// the router's two methods, getRoutes and getSignatureStatuses, plus a method of its own
// that uses the routes plugin's registry, all at /rpc. The server package does the same
// on node:http with config files, metrics and signals; this is the smallest embedding.
//
// Run: node --import tsx examples/embed-plugins-express.ts
//   PORT=0              picks a free port (default 3000)
//   SOLANA_RPC_URL=...  comma-separated upstreams for getSignatureStatuses (default: validator A, 127.0.0.1:17799)
import express, { type NextFunction, type Request, type Response } from 'express';
import { createLogger, createRpc, defineMethodFromSchemas, definePlugin } from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { routesPlugin } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';

const log = createLogger({ level: process.env.LOG_LEVEL === 'debug' ? 'debug' : 'warn' });

// getRoutes: nodes listed inline here; a file, a database or a service work the same way.
const routes = routesPlugin({
  routes: [
    {
      identity: 'MEUGGrYPxKk17hCr7wpT6s8dtNokZj5U2L57vjYMS8e',
      fqdn: 'https://devnet-eu.magicblock.app',
      baseFee: 0,
      blockTimeMs: 50,
      countryCode: 'DEU',
    },
    {
      identity: 'MUS3hc9TCw4cGC12vHNoYcCGzJG1txjgQLZWVoeNHNd',
      fqdn: 'https://devnet-us.magicblock.app',
      baseFee: 0,
      blockTimeMs: 50,
      countryCode: 'USA',
    },
  ],
});

// getSignatureStatuses: memory cache, then the upstreams (no durable store in this example).
const statuses = signatureStatusesPlugin({
  upstreams: (process.env.SOLANA_RPC_URL ?? 'http://127.0.0.1:17799')
    .split(',')
    .map((url) => ({ url: url.trim() })),
  store: false,
});

// The host's own method, beside the plugins': it reads the routes plugin's registry.
const getRoutesInCountry = defineMethodFromSchemas({
  name: 'getRoutesInCountry',
  summary: 'The available nodes located in one country (ISO 3166-1 alpha-3).',
  params: {
    type: 'object',
    properties: { countryCode: { type: 'string', pattern: '^[A-Z]{3}$' } },
    required: ['countryCode'],
    additionalProperties: false,
  },
  result: { type: 'array', items: { type: 'string' } },
  handler: ({ countryCode }) =>
    routes.registry
      .available()
      .filter((r) => r.countryCode === countryCode)
      .map((r) => r.fqdn),
});

const rpc = createRpc({
  plugins: [
    routes,
    statuses,
    definePlugin({ name: 'host-methods', dependencies: ['routes'], methods: [getRoutesInCountry] }),
  ],
  logger: log,
});

const app = express();
app.use(express.json()); // the host's parser: the router takes what it parsed
app.get('/status', (_req, res) => {
  res.json({ ok: true, nodes: routes.registry.available().length });
});
app.use('/rpc', expressRpc(rpc)); // POST /rpc/ (JSON-RPC) and POST /rpc/<method> (specification)
app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
  res.status(500).json({ hostError: err.message });
});

await rpc.start(); // loads the routes, opens pools; before listening, so the first call is served
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : address;
  console.log(`listening on http://127.0.0.1:${port}/rpc`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    rpc.drain(); // later calls get 503 -32053 while the ones under way finish
    server.close(() => {
      void rpc.stop().then(() => console.log('stopped'));
    });
    server.closeIdleConnections();
  });
}
