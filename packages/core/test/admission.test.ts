// One admission step for every transport (HTTP requests, WebSocket upgrades, WebSocket
// messages): drain, rate limit, API key, client address; through real sockets on loopback.
import { causeOf } from '@rollup-router/test-support/wire-error';
import { expect } from 'chai';
import {
  createLogger,
  createRpc,
  defineMethod,
  definePlugin,
  defineSubscription,
  type RpcOptions,
  type SubscriptionSink,
} from '@rollup-router/core';
import { memoryLog, post } from '@rollup-router/test-support/http';
import { serveSockets, type SocketServed } from '@rollup-router/test-support/socket-server';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { refusedUpgrade, TestSocket, type Frame } from '@rollup-router/test-support/ws-client';

const CALL = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const JSON_CT = { 'content-type': 'application/json' };

function plugin() {
  const sinks = new Set<SubscriptionSink<number>>();
  return definePlugin({
    name: 'admission-test',
    methods: [defineMethod<[], string>({ name: 'ping', handler: () => 'pong' })],
    subscriptions: [
      defineSubscription<[], number>({
        subscribe: 'valueSubscribe',
        unsubscribe: 'valueUnsubscribe',
        notification: 'valueNotification',
        params: { type: 'array', maxItems: 0 },
        result: { type: 'integer' },
        start: (_params, sink) => {
          sinks.add(sink);
          return () => sinks.delete(sink);
        },
      }),
    ],
  });
}

describe('admission: one step for every transport', () => {
  const served: SocketServed[] = [];
  const serve = async (options: RpcOptions): Promise<SocketServed> => {
    const s = await serveSockets({ plugins: [plugin()], ...options });
    served.push(s);
    return s;
  };
  afterEach(() => Promise.all(served.splice(0).map((s) => s.close())));

  /** Calls over `c` until one is refused; returns that refusal. */
  async function spend(c: TestSocket): Promise<Frame> {
    for (let id = 1; id <= 20; id++) {
      const answer = await c.call('ping', [], id);
      if (answer.error !== undefined) return answer;
    }
    throw new Error('the budget was never spent');
  }

  it('a refused notification alone gets no answer over WebSocket (rate limited or draining); a call gets its refusal under its id', async () => {
    const s = await serve({ rateLimit: { points: 3, durationSeconds: 60 } });
    const c = await TestSocket.open(s.ws);
    expect(causeOf((await spend(c)).error)).to.equal(-32051);
    c.send('{"jsonrpc":"2.0","method":"ping"}');
    c.send('[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"ping"}]');
    const next = await c.call('ping', [], 99);
    expect(next.id, 'the next frame answers the call, not the notifications').to.equal(99);
    expect(causeOf(next.error)).to.equal(-32051);
    expect(next.error!.data).to.have.property('retryAfterSeconds');
    await c.close();

    const d = await serve({});
    const e = await TestSocket.open(d.ws);
    d.rpc.drain();
    e.send('{"jsonrpc":"2.0","method":"ping"}');
    const drained = await e.call('ping', [], 5);
    expect(drained.id).to.equal(5);
    expect(causeOf(drained.error)).to.equal(-32053);
    await e.close();
  });

  it('HTTP and WebSocket spend one budget per client address; an upgrade over budget is refused with 429', async () => {
    const s = await serve({ rateLimit: { points: 3, durationSeconds: 60 } });
    for (let i = 0; i < 3; i++) expect((await post(s.url, CALL)).status).to.equal(200);
    const r = await refusedUpgrade(s.ws);
    expect(r.status).to.equal(429);
    expect(causeOf(JSON.parse(r.body).error)).to.equal(-32051);
  });

  it('every WebSocket message costs a point whatever its body: 1,000 garbage frames against a budget of 3', async () => {
    const s = await serve({ rateLimit: { points: 3, durationSeconds: 60 } });
    const c = await TestSocket.open(s.ws);
    for (let i = 0; i < 1000; i++) {
      if (i % 2 === 0) c.send('{garbage');
      else c.send(Buffer.from([0xff, 0xfe, 0x7b]), true);
    }
    const codes = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const answer = await c.next();
      expect(answer.id).to.equal(null);
      const cause = causeOf(answer.error)!;
      codes.set(cause, (codes.get(cause) ?? 0) + 1);
    }
    // The upgrade took one point of the three: two frames were parsed, the rest refused unparsed.
    expect(codes.get(-32700) ?? 0).to.be.at.most(2);
    expect(codes.get(-32051)).to.be.at.least(998);
    expect(causeOf((await c.call('ping', [], 7)).error)).to.equal(-32051);
    await c.close();
  });

  it('a refused API key costs a point: key guessing past the budget gets 429, over HTTP and at the upgrade', async () => {
    const s = await serve({ apiKeys: ['key-one-123'], rateLimit: { points: 3, durationSeconds: 60 } });
    const wrong = { ...JSON_CT, authorization: 'Bearer guess-0001' };
    const got: number[] = [];
    for (let i = 0; i < 5; i++) got.push((await post(s.url, CALL, wrong)).status);
    expect(got).to.deep.equal([401, 401, 401, 429, 429]);
    const right = await post(s.url, CALL, { ...JSON_CT, authorization: 'Bearer key-one-123' });
    expect(right.status).to.equal(429);
    expect(right.headers['retry-after']).to.match(/^\d+$/);

    const t = await serve({ apiKeys: ['key-one-123'], rateLimit: { points: 3, durationSeconds: 60 } });
    const upgrades: number[] = [];
    for (let i = 0; i < 5; i++) upgrades.push((await refusedUpgrade(`${t.ws}?api-key=guess-${i}000`)).status);
    expect(upgrades).to.deep.equal([401, 401, 401, 429, 429]);
  });

  it('a subscribe sent as a notification opens nothing: three of them leave a limit of three free', async () => {
    const s = await serve({ websocket: { maxSubscriptionsPerConnection: 3 } });
    const c = await TestSocket.open(s.ws);
    for (let i = 0; i < 3; i++) c.send('{"jsonrpc":"2.0","method":"valueSubscribe"}');
    c.send('[{"jsonrpc":"2.0","method":"valueSubscribe"}]');
    expect((await c.call('ping', [], 1)).result).to.equal('pong');
    expect(s.rpc.subscriptions.active).to.equal(0);
    for (let id = 2; id <= 4; id++) expect((await c.call('valueSubscribe', [], id)).result).to.be.a('number');
    expect(s.rpc.subscriptions.active).to.equal(3);
    await c.close();
  });

  it('maxSubscriptionsPerClient bounds one address across its connections (-32054, per client); a closed one frees its share', async () => {
    const s = await serve({ websocket: { maxSubscriptionsPerClient: 2 } });
    const [a, b] = await Promise.all([TestSocket.open(s.ws), TestSocket.open(s.ws)]);
    expect((await a.call('valueSubscribe', [], 1)).result).to.be.a('number');
    expect((await b.call('valueSubscribe', [], 2)).result).to.be.a('number');
    expect((await b.call('valueSubscribe', [], 3)).error).to.deep.equal({
      code: -32054,
      message: 'Too many subscriptions',
      data: { limit: 2, per: 'client' },
    });
    await a.close();
    await waitFor(() => s.rpc.subscriptions.active === 1, 'the closed socket frees its subscription');
    expect((await b.call('valueSubscribe', [], 4)).result).to.be.a('number');
    await b.close();
  });

  it('a top-level trustProxy keys the rate limit, the per-address connection limit and the subscription limit on the forwarded client', async () => {
    const s = await serve({
      trustProxy: ['loopback'],
      rateLimit: { points: 3, durationSeconds: 60 },
      websocket: { maxConnectionsPerIp: 1, maxSubscriptionsPerClient: 1 },
    });
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    const a = await TestSocket.open(s.ws, from('198.51.100.1'));
    const b = await TestSocket.open(s.ws, from('198.51.100.2'));
    expect((await refusedUpgrade(s.ws, { 'x-forwarded-for': '198.51.100.1' })).status).to.equal(429);
    expect((await a.call('valueSubscribe', [], 1)).result).to.be.a('number');
    expect((await b.call('valueSubscribe', [], 1)).result).to.be.a('number');
    // 198.51.100.2 has spent two points (upgrade, subscribe): one left over HTTP, then 429.
    const xff = { ...JSON_CT, 'x-forwarded-for': '198.51.100.2' };
    expect((await post(s.url, CALL, xff)).status).to.equal(200);
    expect((await post(s.url, CALL, xff)).status).to.equal(429);
    expect((await post(s.url, CALL, { ...JSON_CT, 'x-forwarded-for': '198.51.100.3' })).status).to.equal(200);
    await Promise.all([a.close(), b.close()]);
  });

  it('rateLimit.trustProxy still works, warned once as deprecated; trustProxy true is warned at start', async () => {
    const { log, lines } = memoryLog('info');
    const s = await serve({
      logger: log,
      rateLimit: { points: 100, durationSeconds: 60, trustProxy: ['loopback'] },
      websocket: { maxConnectionsPerIp: 1 },
    });
    const a = await TestSocket.open(s.ws, { headers: { 'x-forwarded-for': '198.51.100.1' } });
    const b = await TestSocket.open(s.ws, { headers: { 'x-forwarded-for': '198.51.100.2' } });
    await Promise.all([a.close(), b.close()]);
    const deprecated = lines.filter((l) => /rateLimit\.trustProxy/.test(l.msg));
    expect(deprecated).to.have.length(1);
    expect(deprecated[0]!.level).to.equal(40);
    expect(deprecated[0]!.msg).to.match(/deprecated.*top-level trustProxy/);

    const trusting = memoryLog('info');
    createRpc({ logger: trusting.log, trustProxy: true });
    const warned = trusting.lines.filter((l) => l.level === 40 && /trustProxy/.test(l.msg));
    expect(warned).to.have.length(1);
    expect(warned[0]!.msg).to.match(/every hop/);
    expect(() =>
      createRpc({
        logger: createLogger({ level: 'silent' }),
        trustProxy: 1,
        rateLimit: { points: 1, durationSeconds: 1, trustProxy: 2 },
      }),
    ).to.throw(/trustProxy/);
  });
});
