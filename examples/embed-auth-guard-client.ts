// An Express app with its own auth middleware that serves the router's getRoutes and a
// method of its own, whose handlers read the signed-in user (ctx.host), behind a guard
// that refuses anonymous callers per call; then the typed client calls it over HTTP and
// WebSocket, as the app's own callers would, and the app stops.
//
// Run: node --import tsx examples/embed-auth-guard-client.ts
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import {
  attachWebSocket,
  createLogger,
  createRpc,
  defineMethod,
  definePlugin,
  RpcError,
  type Guard,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { createClient, RpcCallError } from '@rollup-router/core/client';
import { getRoutesMethod, routesPlugin } from '@rollup-router/routes';

// What the host's auth makes of a request: the signed-in user, or nobody.
interface AppContext {
  readonly user: { readonly id: string } | undefined;
}
const TOKENS = new Map([['s3cret', { id: 'alice' }]]);
const userOf = (req: IncomingMessage) =>
  TOKENS.get(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');

// The embedder's own error for anonymous calls (a code Solana's clients know, so it arrives as is).
const signedIn: Guard<AppContext> = (ctx) => {
  if (ctx.host.user === undefined) throw new RpcError(-32010, 'Sign in first');
};

// The app's own method: typed params, result and context.
const mySum = defineMethod<{ a: number; b: number }, { sum: number; by: string }, AppContext>({
  name: 'mySum',
  params: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  guard: signedIn, // this method only: getRoutes stays public
  handler: ({ a, b }, ctx) => ({ sum: a + b, by: ctx.host.user!.id }),
});

const routes = routesPlugin({
  routes: [
    {
      identity: 'MEUGGrYPxKk17hCr7wpT6s8dtNokZj5U2L57vjYMS8e',
      fqdn: 'https://devnet-eu.magicblock.app',
      baseFee: 0,
      blockTimeMs: 50,
      countryCode: 'DEU',
    },
  ],
});

const rpc = createRpc<AppContext>({
  logger: createLogger({ level: 'warn' }),
  plugins: [routes, definePlugin({ name: 'app', dependencies: ['routes'], methods: [mySum] })],
  // WebSocket connections: made once per connection, from the upgrade request's header.
  context: ({ req }) => ({ user: userOf(req) }),
});

const app = express();
app.use((req: Request, _res: Response, next: NextFunction) => {
  req.user = userOf(req); // the host's auth middleware (passport would set req.user the same way)
  next();
});
// HTTP calls: the context from what the middleware set, once per request (a batch shares it).
app.use('/rpc', expressRpc(rpc, { context: (req) => ({ user: req.user }) }));

const server = createServer(app);
const sockets = attachWebSocket(server, rpc, { path: '/rpc' });
await rpc.start();
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;

// The typed client, from the server's own definitions: params and results are typed.
type Api = { getRoutes: ReturnType<typeof getRoutesMethod>; mySum: typeof mySum };
const signedInHeaders = { authorization: 'Bearer s3cret' };
for (const url of [`http://127.0.0.1:${port}/rpc`, `ws://127.0.0.1:${port}/rpc/`]) {
  const client = createClient<Api>(url, { headers: signedInHeaders, timeoutMs: 5_000 });
  const nodes = await client.getRoutes();
  const { sum, by } = await client.mySum({ a: 2, b: 3 });
  const [first, second] = await client.$batch((call) => [call.mySum({ a: 1, b: 1 }), call.getRoutes()]);
  console.log(`${url}: ${nodes.length} node(s); 2 + 3 = ${sum} by ${by}; batch ok: ${first.ok && second.ok}`);
  await client.$close();

  const anonymous = createClient<Api>(url, { timeoutMs: 5_000 });
  await anonymous.mySum({ a: 1, b: 2 }).catch((err: unknown) => {
    if (!(err instanceof RpcCallError)) throw err;
    console.log(`${url}: anonymous mySum refused: ${err.code} ${err.message}`);
  });
  await anonymous.$close();
}

await sockets.close(0);
server.close();
await rpc.stop();
console.log('stopped');

declare module 'express-serve-static-core' {
  interface Request {
    user?: { readonly id: string };
  }
}
