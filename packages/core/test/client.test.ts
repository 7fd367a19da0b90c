// The typed client (`@rollup-router/core/client`) against an Express embedder with a
// bearer middleware, over HTTP and WebSocket: typed calls, batches, subscriptions, the
// deadline, an AbortSignal, and JSON-RPC errors as RpcCallError with the router's cause.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import {
  attachWebSocket,
  createLogger,
  createRpc,
  defineMethod,
  defineMethodFromSchemas,
  definePlugin,
  defineSubscription,
  RpcError,
  type CallContext,
  type Rpc,
  type SubscriptionSink,
  type WebSocketTransport,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { createClient, RpcCallError, RpcNoAnswerError } from '@rollup-router/core/client';
import { serveSockets } from '@rollup-router/test-support/socket-server';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import { waitFor } from '@rollup-router/test-support/wait-for';

interface AppContext {
  readonly user: string | undefined;
}

const mySum = defineMethodFromSchemas({
  name: 'mySum',
  params: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  result: { type: 'number' },
  handler: ({ a, b }) => a + b,
});
const whoAmI = defineMethod<undefined, string, AppContext>({
  name: 'whoAmI',
  guard: (ctx) => {
    if (ctx.host.user === undefined) throw new RpcError(-32070, 'Sign in first', { realm: 'test' });
  },
  handler: (_p, ctx: CallContext<AppContext>) => ctx.host.user!,
});
const sleep = defineMethod<[number], number>({
  name: 'sleep',
  handler: ([ms], ctx) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(ms), ms);
      ctx.signal.addEventListener('abort', () => clearTimeout(timer));
    }),
});
const sinks = new Set<SubscriptionSink<{ n: number }>>();
const counter = defineSubscription<[], { n: number }>({
  subscribe: 'countSubscribe',
  unsubscribe: 'countUnsubscribe',
  notification: 'countNotification',
  start: (_params, sink) => {
    sinks.add(sink);
    return () => sinks.delete(sink);
  },
});
/** How tenantSubscribe's start answers: at once, once "acknowledged" a moment later, or refused then. */
type Start = 'now' | 'acked' | 'refused';
const tenantSinks = new Set<SubscriptionSink<{ user: string; n: number }>>();
const tenant = defineSubscription<[Start], { user: string; n: number }, AppContext>({
  subscribe: 'tenantSubscribe',
  unsubscribe: 'tenantUnsubscribe',
  notification: 'tenantNotification',
  // A per-tenant policy: only alice's connections may subscribe.
  admit: (_params, ctx) => {
    if (ctx.host.user !== 'alice') throw new RpcError(-32071, 'Not for this tenant', { user: ctx.host.user });
  },
  start: ([how], sink, ctx) => {
    const stop = (): void => void tenantSinks.delete(sink);
    tenantSinks.add(sink);
    // Sent before the answer: it must follow the id, never overtake it.
    sink.notify({ user: ctx.host.user!, n: 1 });
    if (how === 'now') return stop;
    return new Promise((resolve, reject) =>
      setTimeout(() => {
        sink.notify({ user: ctx.host.user!, n: 2 });
        if (how === 'acked') resolve(stop);
        else {
          stop();
          reject(new RpcError(-32003, 'Refused by the source', { why: 'over its limit' }));
        }
      }, 20),
    );
  },
});
const plugin = definePlugin({
  name: 'app',
  methods: [mySum, whoAmI, sleep],
  subscriptions: [counter, tenant],
});

type Api = { mySum: typeof mySum; whoAmI: typeof whoAmI; sleep: typeof sleep };
type Subscriptions = { countSubscribe: typeof counter; tenantSubscribe: typeof tenant };

describe('createClient (@rollup-router/core/client)', () => {
  let rpc: Rpc<AppContext>;
  let server: Server;
  let ws: WebSocketTransport<AppContext>;
  let base: string;

  before(async () => {
    rpc = createRpc<AppContext>({
      logger: createLogger({ level: 'silent' }),
      plugins: [plugin],
      context: ({ req }) => ({ user: /^Bearer (\w+)$/.exec(req.headers.authorization ?? '')?.[1] }),
    });
    const app = express();
    app.use((req: Request, res: Response, next: NextFunction) => {
      res.locals.user = /^Bearer (\w+)$/.exec(req.headers.authorization ?? '')?.[1];
      next();
    });
    app.use(
      '/rpc',
      expressRpc(rpc, { context: (_req, res) => ({ user: res.locals.user as string | undefined }) }),
    );
    server = createServer(app);
    ws = attachWebSocket(server, rpc, { path: '/rpc' });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  });

  after(async () => {
    await ws.close(0);
    server.close();
    await rpc.stop();
  });

  for (const scheme of ['http', 'ws'] as const) {
    describe(`over ${scheme === 'http' ? 'HTTP' : 'WebSocket'}`, () => {
      const url = (): string => `${scheme}://${base}${scheme === 'ws' ? '/' : ''}`;

      it('calls typed methods with the host context from its headers', async () => {
        const client = createClient<Api>(url(), { headers: { authorization: 'Bearer alice' } });
        try {
          const sum: number = await client.mySum({ a: 2, b: 3 });
          expect(sum).to.equal(5);
          expect(await client.whoAmI()).to.equal('alice');
        } finally {
          await client.$close();
        }
      });

      it("rejects with RpcCallError carrying the code, data and the router's cause", async () => {
        const client = createClient<Api>(url());
        try {
          const err = await client.whoAmI().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).to.be.instanceOf(RpcCallError);
          const e = err as RpcCallError;
          expect([e.code, e.causeCode, e.message, e.data]).to.deep.equal([
            -32070,
            -32070,
            'Sign in first',
            { realm: 'test' },
          ]);
          const bad = (await client
            .mySum({ a: 1, b: 'x' } as never)
            .catch((x: unknown) => x)) as RpcCallError;
          expect([bad.code, bad.causeCode]).to.deep.equal([-32602, -32602]);
        } finally {
          await client.$close();
        }
      });

      it('sends a batch whose calls settle one by one', async () => {
        const client = createClient<Api>(url());
        try {
          const [sum, who] = await client.$batch((call) => [call.mySum({ a: 1, b: 1 }), call.whoAmI()]);
          expect(sum).to.deep.equal({ ok: true, result: 2 });
          expect(who.ok).to.equal(false);
          if (!who.ok) expect(who.error.causeCode).to.equal(-32070);
        } finally {
          await client.$close();
        }
      });

      it('gives up at the deadline and on an abort', async () => {
        const client = createClient<Api>(url(), { timeoutMs: 5_000 });
        try {
          const late = (await client
            .sleep([2_000], { timeoutMs: 50 })
            .catch((x: unknown) => x)) as RpcNoAnswerError;
          expect(late).to.be.instanceOf(RpcNoAnswerError);
          expect(late.kind).to.equal('timeout');
          const controller = new AbortController();
          const pending = client.sleep([2_000], { signal: controller.signal }).catch((x: unknown) => x);
          controller.abort();
          expect(((await pending) as RpcNoAnswerError).kind).to.equal('aborted');
        } finally {
          await client.$close();
        }
      });
    });
  }

  it('gives a subscription as an async iterable, and unsubscribes on break', async () => {
    const client = createClient<Api, Subscriptions>(`ws://${base}/`);
    try {
      const subscription = await client.$subscribe('countSubscribe', []);
      expect(subscription.id).to.be.a('number');
      await waitFor(() => sinks.size === 1, 'the subscription to start');
      for (const sink of sinks) for (let n = 1; n <= 3; n++) sink.notify({ n });
      const got: number[] = [];
      for await (const { n } of subscription) {
        got.push(n);
        if (n === 3) break;
      }
      expect(got).to.deep.equal([1, 2, 3]);
      await waitFor(() => sinks.size === 0, 'the unsubscribe to end it');
    } finally {
      await client.$close();
    }
  });

  it('ends the loop with RpcNoAnswerError `closed` (code and reason) when the server closes the socket', async () => {
    const served = await serveSockets({ plugins: [definePlugin({ name: 'own', subscriptions: [counter] })] });
    const client = createClient<Api, Subscriptions>(served.ws);
    try {
      const subscription = await client.$subscribe('countSubscribe', []);
      await waitFor(() => sinks.size === 1, 'the subscription to start');
      for (const sink of sinks) sink.notify({ n: 1 });
      const got: number[] = [];
      const loop = (async () => {
        for await (const { n } of subscription) got.push(n);
      })().then(
        () => 'ended without an error',
        (err: unknown) => err,
      );
      await waitFor(() => got.length === 1, 'the first notification');
      // The server's graceful stop closes every socket with 1001.
      await served.close();
      // A bound on the wait so that the old hang fails here rather than at mocha's timeout.
      const outcome = await Promise.race([
        loop,
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000).unref()),
      ]);
      expect(outcome).to.be.instanceOf(RpcNoAnswerError);
      expect((outcome as RpcNoAnswerError).kind).to.equal('closed');
      expect((outcome as RpcNoAnswerError).message).to.match(/1001 server shutting down/);
      expect(got).to.deep.equal([1]);
    } finally {
      await client.$close();
      sinks.clear();
    }
  });

  it('ends the loop quietly when the client itself closes', async () => {
    const client = createClient<Api, Subscriptions>(`ws://${base}/`);
    const subscription = await client.$subscribe('countSubscribe', []);
    await waitFor(() => sinks.size === 1, 'the subscription to start');
    const loop = (async () => {
      for await (const _ of subscription);
    })().then(
      () => 'ended',
      (err: unknown) => err,
    );
    await client.$close();
    expect(await loop).to.equal('ended');
    await waitFor(() => sinks.size === 0, 'the socket close to end it');
  });

  it("a subscription's admit and start get the call's context: refused by tenant, ctx.host from the Express/WS host", async () => {
    const bob = createClient<Api, Subscriptions>(`ws://${base}/`, {
      headers: { authorization: 'Bearer bob' },
    });
    const alice = createClient<Api, Subscriptions>(`ws://${base}/`, {
      headers: { authorization: 'Bearer alice' },
    });
    try {
      const refused = (await bob
        .$subscribe('tenantSubscribe', ['now'])
        .catch((e: unknown) => e)) as RpcCallError;
      expect(refused).to.be.instanceOf(RpcCallError);
      expect([refused.causeCode, refused.message, refused.data]).to.deep.equal([
        -32071,
        'Not for this tenant',
        { user: 'bob' },
      ]);
      expect(tenantSinks.size).to.equal(0);
      const subscription = await alice.$subscribe('tenantSubscribe', ['now']);
      for await (const notification of subscription) {
        expect(notification).to.deep.equal({ user: 'alice', n: 1 });
        break;
      }
    } finally {
      await Promise.all([bob.$close(), alice.$close()]);
    }
  });

  it("a start that returns a promise: answered once it resolves, what it sent meanwhile after the id; a rejection is the call's error and opens nothing", async () => {
    const socket = await TestSocket.open(`ws://${base}/`, { headers: { authorization: 'Bearer alice' } });
    try {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tenantSubscribe', params: ['acked'] }));
      const answer = await socket.next();
      expect(answer.id).to.equal(1);
      const id = answer.result as number;
      expect(id).to.be.a('number');
      for (const n of [1, 2]) {
        expect((await socket.next()).params).to.deep.equal({
          result: { user: 'alice', n },
          subscription: id,
        });
      }
      expect(tenantSinks.size).to.equal(1);
      expect((await socket.call('tenantUnsubscribe', [id], 2)).result).to.equal(true);
      expect(tenantSinks.size).to.equal(0);

      const live = rpc.subscriptions.active;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tenantSubscribe', params: ['refused'] }));
      const refused = await socket.next();
      expect(refused.error).to.deep.equal({
        code: -32003,
        message: 'Refused by the source',
        data: { why: 'over its limit' },
      });
      expect(tenantSinks.size).to.equal(0);
      expect(rpc.subscriptions.active, 'nothing left counted').to.equal(live);
      // Nothing it sent before the refusal reaches the client: the next message is the next answer.
      expect((await socket.call('mySum', { a: 1, b: 2 }, 4)).result).to.equal(3);
    } finally {
      await socket.close();
    }
  });

  it('is a subpath of its own, for import and require(), that loads no server code', () => {
    // What the client's import graph loads: no Express, no pino, no adapter.
    const script = `
      const before = new Set(Object.keys(require.cache));
      const m = require('@rollup-router/core/client');
      const loaded = Object.keys(require.cache).filter((f) => !before.has(f));
      console.log(JSON.stringify({ exports: Object.keys(m).sort(), server: loaded.filter((f) => /express|pino|adapters|http-handler/.test(f)) }));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: 'packages/core' });
    expect(run.stderr).to.equal('');
    const out = JSON.parse(run.stdout) as { exports: string[]; server: string[] };
    expect(out.exports).to.include.members(['createClient', 'RpcCallError', 'RpcNoAnswerError']);
    expect(out.server).to.deep.equal([]);
  });
});
