// The operator's word on each method (perMethod), in the one cost model of the admission
// step: a call costs its method's points of its payer's budget, item by item in a batch and
// per WebSocket message; a method switched off answers -32055 over every transport. Real
// sockets on loopback. Core alone answers in plain JSON-RPC, its codes as they are (no Solana
// wire form, which would carry them as -32603 with the cause in data.code): codes are exact.
import { expect } from 'chai';
import {
  createLogger,
  createRpc,
  defineMethod,
  definePlugin,
  defineSubscription,
  type RpcOptions,
} from '@rollup-router/core';
import { post } from '@rollup-router/test-support/http';
import { serveSockets, type SocketServed } from '@rollup-router/test-support/socket-server';
import { TestSocket } from '@rollup-router/test-support/ws-client';

const JSON_CT = { 'content-type': 'application/json' };
const call = (method: string, id: number | string = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method });

/** An embedder's own methods: `scan` is the dear one, `airdrop` the one to switch off. */
const methods = [
  defineMethod<[], string>({ name: 'ping', handler: () => 'pong' }),
  defineMethod<[], string>({ name: 'scan', handler: () => 'scanned' }),
  defineMethod<[], string>({ name: 'airdrop', handler: () => 'dropped' }),
];

type Answer = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

describe('perMethod: what a call costs, and methods switched off', () => {
  const served: SocketServed[] = [];
  const serve = async (options: RpcOptions): Promise<SocketServed> => {
    const s = await serveSockets({ methods, ...options });
    served.push(s);
    return s;
  };
  afterEach(() => Promise.all(served.splice(0).map((s) => s.close())));

  it('a method of cost 10 spends a budget of 20 in 2 calls over HTTP; a cheap call is then refused too', async () => {
    const s = await serve({
      rateLimit: { points: 20, durationSeconds: 600 },
      perMethod: { scan: { cost: 10 } },
    });
    for (let i = 1; i <= 2; i++) {
      const r = await post(s.url, call('scan'), JSON_CT);
      expect(r.status, `call ${i}`).to.equal(200);
      expect(JSON.parse(r.text)).to.deep.include({ result: 'scanned' });
    }
    const third = await post(s.url, call('ping'), JSON_CT);
    expect(third.status).to.equal(429);
    expect((JSON.parse(third.text) as Answer).error!.code).to.equal(-32051);
  });

  it('a batch costs the sum of its calls, item by item: [scan, ping] is 11 points', async () => {
    const s = await serve({
      rateLimit: { points: 12, durationSeconds: 600 },
      perMethod: { scan: { cost: 10 } },
    });
    const batch = `[${call('scan', 1)},${call('ping', 2)}]`;
    const first = await post(s.url, batch, JSON_CT);
    expect(first.status).to.equal(200);
    expect((JSON.parse(first.text) as Answer[]).map((a) => a.result)).to.deep.equal(['scanned', 'pong']);
    // One point is left: a single ping passes, the same batch again does not.
    expect((await post(s.url, call('ping'), JSON_CT)).status).to.equal(200);
    expect((await post(s.url, batch, JSON_CT)).status).to.equal(429);
  });

  it('a method of cost 10 spends a budget of 20 in 2 WebSocket messages (the upgrade took one point)', async () => {
    const s = await serve({
      rateLimit: { points: 21, durationSeconds: 600 },
      perMethod: { scan: { cost: 10 } },
    });
    const c = await TestSocket.open(s.ws);
    try {
      expect((await c.call('scan', [], 1)).result).to.equal('scanned');
      expect((await c.call('scan', [], 2)).result).to.equal('scanned');
      const refused = await c.call('ping', [], 3);
      expect(refused.id).to.equal(3);
      expect(refused.error!.code).to.equal(-32051);
    } finally {
      await c.close();
    }
  });

  it('a switched-off method answers -32055 "Method switched off" over HTTP, in a batch and over WebSocket; the others are served', async () => {
    const s = await serve({ perMethod: { airdrop: { enabled: false } } });
    const single = await post(s.url, call('airdrop'), JSON_CT);
    expect(single.status).to.equal(200);
    const { error } = JSON.parse(single.text) as Answer;
    expect(error!.code).to.equal(-32055);
    expect(error!.message).to.equal('Method switched off');
    expect(error!.data).to.deep.include({ method: 'airdrop' });
    // Path style too: the method exists, it is switched off, not missing.
    const byPath = await post(`${s.url}airdrop`, call('airdrop'), JSON_CT);
    expect((JSON.parse(byPath.text) as Answer).error!.code).to.equal(-32055);

    const batch = await post(s.url, `[${call('ping', 1)},${call('airdrop', 2)}]`, JSON_CT);
    const [pong, off] = JSON.parse(batch.text) as Answer[];
    expect(pong).to.deep.include({ id: 1, result: 'pong' });
    expect(off!.id).to.equal(2);
    expect(off!.error!.code).to.equal(-32055);

    const c = await TestSocket.open(s.ws);
    try {
      const overSocket = await c.call('airdrop', [], 7);
      expect(overSocket.id).to.equal(7);
      expect(overSocket.error!.code).to.equal(-32055);
      expect(overSocket.error!.message).to.equal('Method switched off');
      expect((await c.call('ping', [], 8)).result).to.equal('pong');
    } finally {
      await c.close();
    }
  });

  it('a switched-off method costs one point whatever its cost says: it runs nothing', async () => {
    const s = await serve({
      rateLimit: { points: 3, durationSeconds: 600 },
      perMethod: { airdrop: { enabled: false, cost: 10 } },
    });
    for (let i = 1; i <= 3; i++) {
      const r = await post(s.url, call('airdrop'), JSON_CT);
      expect(r.status, `call ${i}`).to.equal(200);
      expect((JSON.parse(r.text) as Answer).error!.code).to.equal(-32055);
    }
    expect((await post(s.url, call('airdrop'), JSON_CT)).status).to.equal(429);
  });

  it('a switched-off method leaves rpc.discover', async () => {
    const s = await serve({ perMethod: { airdrop: { enabled: false } } });
    const { result } = JSON.parse((await post(s.url, call('rpc.discover'), JSON_CT)).text) as {
      result: { methods: { name: string }[] };
    };
    const names = result.methods.map((m) => m.name);
    expect(names).to.include('ping');
    expect(names).not.to.include('airdrop');
  });

  it("prices a plugin's subscribe method like any other: 3 points a subscribe over WebSocket", async () => {
    const plugin = definePlugin({
      name: 'priced',
      subscriptions: [
        defineSubscription<[], number>({
          subscribe: 'valueSubscribe',
          unsubscribe: 'valueUnsubscribe',
          notification: 'valueNotification',
          params: { type: 'array', maxItems: 0 },
          result: { type: 'integer' },
          start: () => () => undefined,
        }),
      ],
    });
    // The upgrade's point, then two subscribes of 3: the budget of 7 is spent.
    const s = await serve({
      plugins: [plugin],
      rateLimit: { points: 7, durationSeconds: 600 },
      perMethod: { valueSubscribe: { cost: 3 } },
    });
    const c = await TestSocket.open(s.ws);
    try {
      expect((await c.call('valueSubscribe', [], 1)).result).to.be.a('number');
      expect((await c.call('valueSubscribe', [], 2)).result).to.be.a('number');
      expect((await c.call('ping', [], 3)).error!.code).to.equal(-32051);
    } finally {
      await c.close();
    }
  });

  it('a perMethod name no method has is refused when the service is built, naming it', () => {
    const build = () =>
      createRpc({
        logger: createLogger({ level: 'silent' }),
        methods,
        perMethod: { scan: { cost: 2 }, sacn: { cost: 2 }, airdorp: { enabled: false } },
      });
    expect(build).to.throw(TypeError, 'perMethod names methods this service does not serve: sacn, airdorp');
  });
});
