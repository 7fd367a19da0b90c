// An existing Express 5 app with its own body parser, routes and error handler, and
// the JSON-RPC service mounted beside them at /rpc with a custom method.
// Run: node --import tsx examples/embed-express.ts   (PORT=0 picks a free port)
import express, { type NextFunction, type Request, type Response } from 'express';
import { createRpc, defineMethodFromSchemas, definePlugin } from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';

const getGreeting = defineMethodFromSchemas({
  name: 'getGreeting',
  summary: 'Greets someone by name.',
  params: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
    required: ['name'],
    additionalProperties: false,
  },
  result: { type: 'string' },
  // `name` is typed string: the type follows from the params schema.
  handler: ({ name }): string => `Hello, ${name}!`,
});

const rpc = createRpc({
  plugins: [definePlugin({ name: 'greetings', methods: [getGreeting] })],
  validateResults: true,
});

const app = express();
app.use(express.json()); // the host's own parser: the router uses what it parsed
app.get('/status', (_req, res) => {
  res.json({ ok: true });
});
app.use('/rpc', expressRpc(rpc));
app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
  res.status(500).json({ hostError: err.message });
});

await rpc.start();
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : address;
  console.log(`listening on http://127.0.0.1:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    void rpc.stop();
  });
}
