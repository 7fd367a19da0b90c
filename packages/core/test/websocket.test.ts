import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  attachWebSocket,
  createLogger,
  createNodeListener,
  createRpc,
  defineMethod,
  definePlugin,
  defineSubscription,
  type Rpc,
  type RpcOptions,
  type SubscriptionSink,
  type WebSocketTransport,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { post } from '@rollup-router/test-support/http';
import { refusedUpgrade, TestSocket } from '@rollup-router/test-support/ws-client';

/** A subscription the test drives: `emit` notifies every live one; `sinks` is what the plugin holds. */
function valuePlugin() {
  const sinks = new Set<SubscriptionSink<{ value: number }>>();
  const plugin = definePlugin({
    name: 'values',
    methods: [
      defineMethod<[], string>({ name: 'ping', handler: () => 'pong' }),
      defineMethod<[number], number>({
        name: 'slow',
        handler: ([ms]) => new Promise((r) => setTimeout(() => r(ms), ms)),
      }),
    ],
    subscriptions: [
      defineSubscription<[string] | [], { value: number }>({
        subscribe: 'valueSubscribe',
        unsubscribe: 'valueUnsubscribe',
        notification: 'valueNotification',
        params: { type: 'array', maxItems: 1, prefixItems: [{ enum: ['once', 'many'] }] },
        result: { type: 'object' },
        start: ([mode], sink) => {
          // 'once' is already at its level: notified at once, then ends by itself.
          if (mode === 'once') {
            sink.notify({ value: 0 });
            sink.end();
          }
          sinks.add(sink);
          return () => sinks.delete(sink);
        },
      }),
    ],
  });
  return { plugin, sinks, emit: (value: number) => [...sinks].forEach((s) => s.notify({ value })) };
}

interface Served {
  rpc: Rpc;
  http: Server;
  sockets: WebSocketTransport;
  url: string;
  ws: string;
  close(): Promise<void>;
}

async function serve(options: RpcOptions, path = '/'): Promise<Served> {
  const rpc = createRpc({ logger: createLogger({ level: 'silent' }), ...options });
  await rpc.start();
  const http = createServer(createNodeListener(rpc, { mountPath: path === '/' ? '' : path }));
  const sockets = attachWebSocket(http, rpc, { path });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  const root = path === '/' ? '/' : `${path}/`;
  return {
    rpc,
    http,
    sockets,
    url: `http://127.0.0.1:${port}${root}`,
    ws: `ws://127.0.0.1:${port}${root}`,
    close: async () => {
      await sockets.close(0);
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
      await rpc.stop();
    },
  };
}

const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check(), what).to.equal(true);
};

describe('JSON-RPC over WebSocket: one pipeline with HTTP', () => {
  let s: Served;
  let values: ReturnType<typeof valuePlugin>;
  before(async () => {
    values = valuePlugin();
    s = await serve({ plugins: [values.plugin] });
  });
  after(() => s.close());

  it('close() from JavaScript with no grace is a TypeError, not a close that cuts every call short', () => {
    const close = s.sockets.close.bind(s.sockets) as unknown as (graceMs?: unknown) => Promise<void>;
    expect(() => close()).to.throw(TypeError, 'graceMs must be a number of milliseconds, got undefined');
    expect(() => close('15s')).to.throw(TypeError, 'got 15s');
  });

  it('answers calls, batches, notifications-only messages, and the JSON-RPC errors, as HTTP does', async () => {
    const c = await TestSocket.open(s.ws);
    expect(await c.call('ping', [], 7)).to.deep.equal({ jsonrpc: '2.0', result: 'pong', id: 7 });
    c.send('{"jsonrpc":"2.0","id":1,"method":"nope"}');
    expect(await c.nextText()).to.equal(
      '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}',
    );
    c.send('{"jsonrpc":"2.0","id":1,');
    expect(await c.nextText()).to.equal(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}',
    );
    c.send(
      '[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","id":2,"method":"valueSubscribe","params":["bogus"]}]',
    );
    const batch = (await c.next()) as unknown as { id: unknown; error?: { code: number } }[];
    expect(batch.map((a) => a.id)).to.deep.equal(['a', 2]);
    expect(batch[1]!.error!.code).to.equal(-32602);
    // A message of notifications only owes nothing: the next answer is the next call's.
    c.send('{"jsonrpc":"2.0","method":"ping"}');
    expect((await c.call('ping', [], 3)).id).to.equal(3);
    await c.close();
  });

  it('subscribe answers an integer id before any notification; notifications follow Solana; unsubscribe answers true then -32602', async () => {
    const c = await TestSocket.open(s.ws);
    c.send('{"jsonrpc":"2.0","id":1,"method":"valueSubscribe","params":["once"]}');
    const ack = await c.next();
    expect(ack.result).to.be.a('number');
    expect(await c.nextText()).to.equal(
      `{"jsonrpc":"2.0","method":"valueNotification","params":{"result":{"value":0},"subscription":${String(ack.result)}}}`,
    );
    // It ended by itself: its id is gone.
    expect((await c.call('valueUnsubscribe', [ack.result], 2)).error).to.deep.equal({
      code: -32602,
      message: 'Unknown subscription id',
    });
    const id = (await c.call('valueSubscribe', ['many'], 3)).result as number;
    values.emit(5);
    expect(await c.next()).to.deep.equal({
      jsonrpc: '2.0',
      method: 'valueNotification',
      params: { result: { value: 5 }, subscription: id },
    });
    expect(await c.call('valueUnsubscribe', [id], 4)).to.deep.equal({ jsonrpc: '2.0', result: true, id: 4 });
    expect((await c.call('valueUnsubscribe', [id], 5)).error!.message).to.equal('Unknown subscription id');
    expect((await c.call('valueSubscribe', ['bogus'], 6)).error).to.include({ code: -32602 });
    expect((await c.call('valueUnsubscribe', ['x'], 7)).error).to.include({ code: -32602 });
    await c.close();
  });

  it('subscriptions in a batch start after the batch answer is sent: no notification overtakes its id', async () => {
    const c = await TestSocket.open(s.ws);
    c.send(
      '[{"jsonrpc":"2.0","id":1,"method":"valueSubscribe","params":["once"]},{"jsonrpc":"2.0","id":2,"method":"valueSubscribe","params":["once"]}]',
    );
    const answers = (await c.next()) as unknown as { id: number; result: number }[];
    expect(answers.map((a) => a.id)).to.deep.equal([1, 2]);
    const notified = [(await c.next()).params!.subscription, (await c.next()).params!.subscription];
    expect(notified).to.have.members(answers.map((a) => a.result));
    await c.close();
  });

  it("ids are unique across connections, and one connection cannot end another one's subscription", async () => {
    const [a, b] = await Promise.all([TestSocket.open(s.ws), TestSocket.open(s.ws)]);
    const ida = (await a.call('valueSubscribe', ['many'])).result as number;
    const idb = (await b.call('valueSubscribe', ['many'])).result as number;
    expect(ida).to.not.equal(idb);
    expect((await b.call('valueUnsubscribe', [ida], 2)).error!.message).to.equal('Unknown subscription id');
    await Promise.all([a.close(), b.close()]);
  });

  it('a closed socket frees every subscription it held (rpc.subscriptions.active, and the plugin lets go)', async () => {
    const before = s.rpc.subscriptions.active;
    const c = await TestSocket.open(s.ws);
    for (let i = 0; i < 5; i++) await c.call('valueSubscribe', ['many'], i);
    expect(s.rpc.subscriptions.active).to.equal(before + 5);
    expect(values.sinks.size).to.be.at.least(5);
    await c.close();
    await until(() => s.rpc.subscriptions.active === before, 'subscriptions freed');
    expect(values.sinks.size).to.equal(before);
  });

  it('over HTTP a subscribe method is -32601 saying it needs a socket', async () => {
    const r = await post(s.url, '{"jsonrpc":"2.0","id":1,"method":"valueSubscribe","params":["many"]}');
    const body = JSON.parse(r.text) as { error: { code: number; data: string } };
    expect(body.error.code).to.equal(-32601);
    expect(body.error.data).to.match(/WebSocket/);
  });

  it('rpc.discover lists the subscription and its two methods', async () => {
    const doc = s.rpc.discover();
    expect(doc.methods.map((m) => m.name)).to.include.members(['valueSubscribe', 'valueUnsubscribe']);
    expect(doc['x-subscriptions']).to.deep.equal([
      {
        subscribe: 'valueSubscribe',
        unsubscribe: 'valueUnsubscribe',
        notification: 'valueNotification',
        result: { type: 'object' },
      },
    ]);
  });

  it('every call is observed by onCall, as over HTTP (metrics)', async () => {
    const seen: string[] = [];
    const stop = s.rpc.onCall((e) => seen.push(`${e.method}:${e.code}`));
    const c = await TestSocket.open(s.ws);
    await c.call('ping');
    await c.call('nope');
    stop();
    expect(seen).to.deep.equal(['ping:0', 'nope:-32601']);
    await c.close();
  });

  it('an upgrade at another path than the root endpoint is refused with 404', async () => {
    const r = await refusedUpgrade(`${s.ws}elsewhere`);
    expect(r.status).to.equal(404);
    expect(JSON.parse(r.body).error.code).to.equal(-32601);
  });
});

describe('WebSocket access control and limits', () => {
  it('API keys: Authorization or ?api-key= opens; none or a wrong one is refused with 401 -32050', async () => {
    const s = await serve({ apiKeys: ['key-one-123'], plugins: [valuePlugin().plugin] });
    try {
      const r = await refusedUpgrade(s.ws);
      expect(r.status).to.equal(401);
      expect(r.body).to.equal('{"jsonrpc":"2.0","error":{"code":-32050,"message":"Unauthorized"},"id":null}');
      expect((await refusedUpgrade(`${s.ws}?api-key=nope-nope`)).status).to.equal(401);
      const a = await TestSocket.open(`${s.ws}?api-key=key-one-123`);
      const b = await TestSocket.open(s.ws, { headers: { authorization: 'Bearer key-one-123' } });
      expect((await a.call('ping')).result).to.equal('pong');
      expect((await b.call('ping')).result).to.equal('pong');
      await Promise.all([a.close(), b.close()]);
    } finally {
      await s.close();
    }
  });

  it('allowed origins: a browser page of another origin is refused with 403; its own origin and no Origin open', async () => {
    const s = await serve({ cors: ['https://app.example'], plugins: [valuePlugin().plugin] });
    try {
      const r = await refusedUpgrade(s.ws, { origin: 'https://evil.example' });
      expect(r.status).to.equal(403);
      expect(JSON.parse(r.body).error.code).to.equal(-32050);
      const allowed = await TestSocket.open(s.ws, { origin: 'https://app.example' });
      const noOrigin = await TestSocket.open(s.ws);
      const host = new URL(s.url).host;
      const sameOrigin = await TestSocket.open(s.ws, { origin: `http://${host}` });
      await Promise.all([allowed.close(), noOrigin.close(), sameOrigin.close()]);
    } finally {
      await s.close();
    }
  });

  it('connections: over the total is 503, over the per-client limit is 429; a closed one frees its slot', async () => {
    const s = await serve({
      websocket: { maxConnections: 3, maxConnectionsPerIp: 2 },
      plugins: [valuePlugin().plugin],
    });
    try {
      const a = await TestSocket.open(s.ws);
      const b = await TestSocket.open(s.ws);
      const r = await refusedUpgrade(s.ws);
      expect(r.status).to.equal(429);
      expect(JSON.parse(r.body).error.code).to.equal(-32051);
      await a.close();
      await until(() => s.sockets.connectionCount === 1, 'slot freed');
      const c = await TestSocket.open(s.ws);
      await Promise.all([b.close(), c.close()]);
    } finally {
      await s.close();
    }
    const t = await serve({ websocket: { maxConnections: 1 }, plugins: [valuePlugin().plugin] });
    try {
      const a = await TestSocket.open(t.ws);
      expect((await refusedUpgrade(t.ws)).status).to.equal(503);
      await a.close();
    } finally {
      await t.close();
    }
  });

  it('subscriptions per connection: the one past the limit gets -32054; others still subscribe', async () => {
    const s = await serve({
      websocket: { maxSubscriptionsPerConnection: 2 },
      plugins: [valuePlugin().plugin],
    });
    try {
      const c = await TestSocket.open(s.ws);
      await c.call('valueSubscribe', ['many'], 1);
      await c.call('valueSubscribe', ['many'], 2);
      expect((await c.call('valueSubscribe', ['many'], 3)).error).to.deep.equal({
        code: -32054,
        message: 'Too many subscriptions',
        data: { limit: 2, per: 'connection' },
      });
      const d = await TestSocket.open(s.ws);
      expect((await d.call('valueSubscribe', ['many'])).result).to.be.a('number');
      await Promise.all([c.close(), d.close()]);
    } finally {
      await s.close();
    }
  });

  it('rate limits charge the upgrade and every call of every message; a refused call gets -32051 under its own id', async () => {
    // One point for the upgrade, two for the batch, one for the call.
    const s = await serve({ rateLimit: { points: 4, durationSeconds: 60 }, plugins: [valuePlugin().plugin] });
    try {
      const c = await TestSocket.open(s.ws);
      c.send('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]');
      expect(((await c.next()) as unknown as unknown[]).length).to.equal(2);
      expect((await c.call('ping', [], 3)).result).to.equal('pong');
      const refused = await c.call('ping', [], 4);
      expect(refused.id).to.equal(4);
      expect(refused.error).to.deep.include({ code: -32051, message: 'Too many requests' });
      await c.close();
    } finally {
      await s.close();
    }
  });
});

describe('WebSocket hostile input', () => {
  let s: Served;
  before(async () => {
    s = await serve({ websocket: { maxMessageBytes: 4096 }, plugins: [valuePlugin().plugin] });
  });
  after(() => s.close());

  it('a frame over maxMessageBytes closes that socket with 1009; another socket is still answered', async () => {
    const bystander = await TestSocket.open(s.ws);
    const c = await TestSocket.open(s.ws);
    c.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":["${'x'.repeat(10_000)}"]}`);
    expect((await c.closed).code).to.equal(1009);
    expect((await bystander.call('ping')).result).to.equal('pong');
    await bystander.close();
  });

  it('a binary frame of JSON is answered; binary that is not UTF-8 is -32700; a text frame that is not UTF-8 closes with 1007', async () => {
    const c = await TestSocket.open(s.ws);
    c.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'), true);
    expect((await c.next()).result).to.equal('pong');
    c.send(Buffer.from([0xff, 0xfe, 0x7b]), true);
    expect((await c.next()).error!.code).to.equal(-32700);
    c.send(Buffer.from([0x22, 0xc3, 0x28, 0x22]), false);
    expect((await c.closed).code).to.equal(1007);
  });

  it('a flood of 5,000 messages is all answered, in bounded memory, while another socket is answered meanwhile', async () => {
    const flooder = await TestSocket.open(s.ws);
    const bystander = await TestSocket.open(s.ws);
    for (let i = 0; i < 5000; i++) flooder.send(`{"jsonrpc":"2.0","id":${i},"method":"ping"}`);
    expect((await bystander.call('ping')).result).to.equal('pong');
    const ids = new Set<unknown>();
    for (let i = 0; i < 5000; i++) ids.add((await flooder.next()).id);
    expect(ids.size).to.equal(5000);
    await Promise.all([flooder.close(), bystander.close()]);
  });

  it('garbage of every shape is answered, never crashes the server', async () => {
    const c = await TestSocket.open(s.ws);
    for (const junk of [
      '',
      'null',
      '[]',
      '[1,2]',
      '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      '"x"',
      '1e999',
      '\u0000',
    ]) {
      c.send(junk);
      const answer = await c.nextText();
      expect(answer).to.match(/"error":\{"code":-32(700|600)/);
    }
    expect((await c.call('ping')).result).to.equal('pong');
    await c.close();
  });
});

describe('WebSocket slow consumers, keep-alive and shutdown', () => {
  it('a client that does not read is closed with 1008 once its buffered bytes pass the limit', async () => {
    const values = valuePlugin();
    const s = await serve({ websocket: { maxBufferedBytes: 64 * 1024 }, plugins: [values.plugin] });
    try {
      const c = await TestSocket.open(s.ws);
      await c.call('valueSubscribe', ['many']);
      // Stop reading: the kernel buffers fill, then ws's own.
      (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      const big = 'y'.repeat(16 * 1024);
      for (let i = 0; i < 2000 && s.sockets.connectionCount > 0; i++) {
        for (const sink of values.sinks) sink.notify({ value: i, big } as never);
        await new Promise((r) => setImmediate(r));
      }
      await until(() => s.sockets.connectionCount === 0, 'slow consumer closed');
    } finally {
      await s.close();
    }
  });

  it('a peer that answers no ping is cut off', async () => {
    const s = await serve({ websocket: { pingIntervalMs: 50 }, plugins: [valuePlugin().plugin] });
    try {
      const alive = await TestSocket.open(s.ws);
      const dead = await TestSocket.open(s.ws, { autoPong: false });
      expect((await dead.closed).code).to.equal(1006);
      expect((await alive.call('ping')).result).to.equal('pong');
      await alive.close();
    } finally {
      await s.close();
    }
  });

  it('close(): the call under way is answered, then the socket closes with 1001; new upgrades get 503', async () => {
    const s = await serve({ plugins: [valuePlugin().plugin] });
    const c = await TestSocket.open(s.ws);
    c.send('{"jsonrpc":"2.0","id":9,"method":"slow","params":[200]}');
    await new Promise((r) => setTimeout(r, 50));
    const closing = s.sockets.close(5000);
    expect((await refusedUpgrade(s.ws)).status).to.equal(503);
    expect(await c.next()).to.deep.equal({ jsonrpc: '2.0', result: 200, id: 9 });
    expect((await c.closed).code).to.equal(1001);
    await closing;
    await s.close();
  });

  /**
   * Methods whose calls wait: `untilAborted` until the client leaves (an upstream request
   * made with ctx.signal), `held` until the test releases it, whatever the signal says.
   */
  function waitingPlugin() {
    const state = { entered: 0, release: (): void => undefined };
    const released = new Promise<void>((done) => (state.release = done));
    const plugin = definePlugin({
      name: 'waiting',
      methods: [
        defineMethod<[], string>({
          name: 'untilAborted',
          handler: (_params, ctx) =>
            new Promise((_resolve, reject) => {
              state.entered += 1;
              ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
            }),
        }),
        defineMethod<[], string>({
          name: 'held',
          handler: async () => {
            state.entered += 1;
            await released;
            return 'released';
          },
        }),
      ],
    });
    return Object.assign(state, { plugin });
  }

  for (const method of ['untilAborted', 'held']) {
    it(`close(): a client that leaves while its call (${method}) is under way does not keep close() waiting`, async () => {
      const waiting = waitingPlugin();
      const s = await serve({ plugins: [waiting.plugin] });
      try {
        const c = await TestSocket.open(s.ws);
        c.send(`{"jsonrpc":"2.0","id":1,"method":"${method}"}`);
        await until(() => waiting.entered === 1, 'the call is under way');
        // A grace far longer than mocha's timeout: only the client's leaving can end the wait.
        const closing = s.sockets.close(600_000);
        c.ws.terminate();
        await until(() => s.sockets.connectionCount === 0, 'the server saw the client leave');
        await closing;
      } finally {
        waiting.release();
        await s.close();
      }
    });
  }

  it('after rpc.drain() a call over an open socket gets -32053', async () => {
    const s = await serve({ plugins: [valuePlugin().plugin] });
    const c = await TestSocket.open(s.ws);
    s.rpc.drain();
    expect((await c.call('ping', [], 5)).error).to.deep.equal({
      code: -32053,
      message: 'Server is shutting down',
    });
    await s.close();
  });
});

describe('attachWebSocket on an Express app', () => {
  it('one call serves the socket at the router mount of an Express app', async () => {
    const rpc = createRpc({ logger: createLogger({ level: 'silent' }), plugins: [valuePlugin().plugin] });
    await rpc.start();
    const app = express();
    app.use('/rpc', expressRpc(rpc));
    const http = app.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const sockets = attachWebSocket(http, rpc, { path: '/rpc' });
    const { port } = http.address() as AddressInfo;
    const c = await TestSocket.open(`ws://127.0.0.1:${port}/rpc/`);
    expect((await c.call('ping')).result).to.equal('pong');
    await sockets.close(0);
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
    await rpc.stop();
  });
});
