// The host's context in handlers and guards that refuse calls (issue 31), through a real
// Express app with a real (hand-written) bearer middleware, over HTTP and WebSocket.
import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import {
  attachWebSocket,
  createLogger,
  createNodeListener,
  createRpc,
  defineMethod,
  definePlugin,
  RpcError,
  type Rpc,
  type WebSocketTransport,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { post } from '@rollup-router/test-support/http';
import { refusedUpgrade, TestSocket } from '@rollup-router/test-support/ws-client';

// The same shape as examples/embed-auth-guard-client.ts gives req.user (one augmentation of Express's Request).
interface User {
  readonly id: string;
}
const ADMINS = new Set(['alice']);
interface AppContext {
  readonly user: User | undefined;
}

const TOKENS: Record<string, User> = {
  'alice-token': { id: 'alice' },
  'bob-token': { id: 'bob' },
};

declare module 'express-serve-static-core' {
  interface Request {
    user?: { readonly id: string };
  }
}

/** The host's auth middleware: a bearer token names a user; none leaves req.user unset. */
function bearer(req: Request, _res: Response, next: NextFunction): void {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (token !== undefined && TOKENS[token] !== undefined) req.user = TOKENS[token];
  next();
}

/** The embedder's own error for an unauthenticated call. */
const NOT_SIGNED_IN = -32010;
const signedIn = (ctx: { host: AppContext }): void => {
  if (ctx.host.user === undefined)
    throw new RpcError(NOT_SIGNED_IN, 'Sign in first', { hint: 'send a bearer token' });
};

const whoAmI = defineMethod<undefined, string, AppContext>({
  name: 'whoAmI',
  guard: signedIn,
  handler: (_params, ctx) => ctx.host.user!.id,
});
const publicEcho = defineMethod<[string], string, AppContext>({
  name: 'echo',
  params: { type: 'array', prefixItems: [{ type: 'string' }], minItems: 1, maxItems: 1 },
  handler: ([text], ctx) => `${ctx.host.user?.id ?? 'anonymous'}: ${text}`,
});
const adminPlugin = definePlugin({
  name: 'admin',
  guard: (ctx: { host: AppContext }) => {
    if (!ADMINS.has(ctx.host.user?.id ?? '')) throw new RpcError(-32011, 'Admins only');
  },
  methods: [defineMethod<undefined, string>({ name: 'adminOnly', handler: () => 'secret' })],
});

describe('host context and guards', () => {
  let rpc: Rpc<AppContext>;
  let server: Server;
  let ws: WebSocketTransport<AppContext>;
  let url: string;
  const seen: string[] = [];

  before(async () => {
    rpc = createRpc<AppContext>({
      logger: createLogger({ level: 'silent' }),
      methods: [whoAmI, publicEcho],
      plugins: [adminPlugin],
      // Over WebSocket: the upgrade's own bearer header (the Express middleware does not run for upgrades).
      context: ({ req }) => ({ user: userOf(req) }),
    });
    rpc.guard((ctx) => void seen.push(ctx.method));
    const app = express();
    app.use(bearer);
    app.use('/rpc', expressRpc(rpc, { context: (req) => ({ user: req.user }) }));
    server = createServer(app);
    ws = attachWebSocket(server, rpc, { path: '/rpc' });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  });

  after(async () => {
    await ws.close(0);
    server.close();
    await rpc.stop();
  });

  const call = async (body: unknown, token?: string): Promise<unknown> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    return JSON.parse((await post(url, JSON.stringify(body), headers)).text) as unknown;
  };

  it("gives a handler the user the host's auth middleware set", async () => {
    expect(await call({ jsonrpc: '2.0', id: 1, method: 'whoAmI' }, 'bob-token')).to.deep.equal({
      jsonrpc: '2.0',
      result: 'bob',
      id: 1,
    });
  });

  it("refuses the unauthenticated call with the embedder's error, in the normal envelope", async () => {
    expect(await call({ jsonrpc: '2.0', id: 2, method: 'whoAmI' })).to.deep.equal({
      jsonrpc: '2.0',
      error: { code: NOT_SIGNED_IN, message: 'Sign in first', data: { hint: 'send a bearer token' } },
      id: 2,
    });
  });

  it('guards each call of a batch, not the request once', async () => {
    const answers = (await call([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: ['hi'] },
      { jsonrpc: '2.0', id: 2, method: 'whoAmI' },
      { jsonrpc: '2.0', id: 3, method: 'adminOnly' },
    ])) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(answers.map((a) => [a.id, a.result ?? a.error?.code])).to.deep.equal([
      [1, 'anonymous: hi'],
      [2, NOT_SIGNED_IN],
      [3, -32011],
    ]);
    const asBob = (await call(
      [
        { jsonrpc: '2.0', id: 1, method: 'whoAmI' },
        { jsonrpc: '2.0', id: 2, method: 'adminOnly' },
      ],
      'bob-token',
    )) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(asBob.map((a) => [a.id, a.result ?? a.error?.code])).to.deep.equal([
      [1, 'bob'],
      [2, -32011],
    ]);
    expect(await call({ jsonrpc: '2.0', id: 9, method: 'adminOnly' }, 'alice-token')).to.have.property(
      'result',
      'secret',
    );
  });

  it('runs the guards before params validation, and unknown methods pass through them', async () => {
    seen.length = 0;
    const unknown = (await call({ jsonrpc: '2.0', id: 4, method: 'noSuchMethod' })) as {
      error: { code: number };
    };
    expect(unknown.error.code).to.equal(-32601);
    expect(seen).to.deep.equal(['noSuchMethod']);
    // Bad params for a guarded method: the guard's refusal, not the schema's -32602.
    const refused = (await call({ jsonrpc: '2.0', id: 5, method: 'whoAmI', params: 'x' })) as {
      error: { code: number };
    };
    expect(refused.error.code).to.equal(NOT_SIGNED_IN);
  });

  it('makes the context once per WebSocket connection from its upgrade request', async () => {
    const wsUrl = `${url.replace('http', 'ws')}/`;
    const bob = await TestSocket.open(wsUrl, { headers: { authorization: 'Bearer bob-token' } });
    expect((await bob.call('whoAmI', undefined, 1)).result).to.equal('bob');
    bob.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 2, method: 'adminOnly' },
        { jsonrpc: '2.0', id: 3, method: 'echo', params: ['yo'] },
      ]),
    );
    const batch = JSON.parse(JSON.stringify(await bob.next())) as {
      id: number;
      result?: unknown;
      error?: { code: number };
    }[];
    expect(batch.map((a) => [a.id, a.result ?? a.error?.code])).to.deep.equal([
      [2, -32011],
      [3, 'bob: yo'],
    ]);
    await bob.close();
    const anonymous = await TestSocket.open(wsUrl);
    const answer = await anonymous.call('whoAmI', undefined, 7);
    expect(answer.error).to.deep.include({ code: NOT_SIGNED_IN, message: 'Sign in first' });
    expect(answer.id).to.equal(7);
    await anonymous.close();
  });

  it('refuses the request with the error a context function throws', async () => {
    const strict = createRpc<AppContext>({
      logger: createLogger({ level: 'silent' }),
      methods: [whoAmI],
      context: ({ req }) => {
        const user = userOf(req);
        if (user === undefined) throw new RpcError(-32012, 'Token required');
        return { user };
      },
    });
    const app = express();
    app.use('/rpc', expressRpc(strict));
    const host = createServer(app);
    const transport = attachWebSocket(host, strict, { path: '/rpc' });
    host.listen(0, '127.0.0.1');
    await once(host, 'listening');
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/rpc`;
    try {
      const res = await post(base, '{"jsonrpc":"2.0","id":1,"method":"whoAmI"}');
      expect(JSON.parse(res.text)).to.deep.equal({
        jsonrpc: '2.0',
        error: { code: -32012, message: 'Token required' },
        id: null,
      });
      const upgrade = await refusedUpgrade(`${base.replace('http', 'ws')}/`);
      expect(upgrade.status).to.equal(403);
      expect(JSON.parse(upgrade.body)).to.have.nested.property('error.code', -32012);
    } finally {
      await transport.close(0);
      host.close();
    }
  });

  it("uses the WebSocket adapter's own context option over the service's", async () => {
    const host = createServer();
    // The service's context finds no bearer token here; the adapter's reads the embedder's own header.
    const transport = attachWebSocket(host, rpc, {
      path: '/own',
      context: (req) => ({ user: { id: String(req.headers['x-user']) } }),
    });
    host.listen(0, '127.0.0.1');
    await once(host, 'listening');
    const socket = await TestSocket.open(`ws://127.0.0.1:${(host.address() as AddressInfo).port}/own`, {
      headers: { 'x-user': 'carol' },
    });
    try {
      expect((await socket.call('whoAmI', undefined, 1)).result).to.equal('carol');
    } finally {
      await socket.close();
      await transport.close(0);
      host.close();
    }
  });

  it("ends a call whose guard never settles at the call's deadline, and tells the guard", async () => {
    let aborted = false;
    const slow = createRpc({
      logger: createLogger({ level: 'silent' }),
      limits: { callDeadlineMs: 200 },
      methods: [defineMethod<undefined, string>({ name: 'ping', handler: () => 'pong' })],
    });
    slow.guard(
      (ctx) =>
        new Promise<void>(() => {
          ctx.signal.addEventListener('abort', () => (aborted = true));
        }),
    );
    const host = createServer(createNodeListener(slow));
    host.listen(0, '127.0.0.1');
    await once(host, 'listening');
    try {
      const res = await post(
        `http://127.0.0.1:${(host.address() as AddressInfo).port}/`,
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      );
      expect(JSON.parse(res.text)).to.deep.include({
        error: { code: -32052, message: 'Deadline exceeded', data: { deadlineMs: 200 } },
      });
      expect(aborted).to.equal(true);
    } finally {
      host.close();
      await slow.stop();
    }
  });
});

function userOf(req: IncomingMessage): User | undefined {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return token === undefined ? undefined : TOKENS[token];
}
