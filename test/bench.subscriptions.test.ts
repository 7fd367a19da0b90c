// The bench's WebSocket and subscription figures rest on these: the socket load ends and
// counts answers, the poll-round counter is read back, the verdict on requests per round,
// and the upstream stand-in's unknown-until-learned signatures (a real child process).
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WebSocketServer } from 'ws';

const load = async <T>(file: string): Promise<T> =>
  (await import(new URL(`../bench/lib/${file}`, import.meta.url).href)) as T;

interface LoadResult {
  totalRequests: number;
  non2xx: number;
  errors: number;
}
type Load = (
  url: string,
  requests: { path: string; body: string }[],
  settings: object,
) => Promise<LoadResult>;

describe('bench: WebSocket and subscriptions', () => {
  let server: WebSocketServer;
  let url: string;
  before(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('connection', (ws) =>
      ws.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id: number };
        ws.send(
          id === 2
            ? `{"jsonrpc":"2.0","error":{"code":-1,"message":"no"},"id":2}`
            : `{"jsonrpc":"2.0","result":"pong","id":${id}}`,
        );
      }),
    );
  });
  after(() => server.close());

  it('socket load: a warm-up ends (no latency kept) and a measured run counts answers and failures', async () => {
    const { warmUpSocket, measureSocketLoad } = await load<{ warmUpSocket: Load; measureSocketLoad: Load }>(
      'socket-load.mjs',
    );
    const ok = { path: '/', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' };
    await (warmUpSocket as unknown as (...a: unknown[]) => Promise<void>)(
      url,
      [ok],
      { connections: 2, pipelining: 1 },
      0.2,
    );
    const failing = { path: '/', body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' };
    const r = await measureSocketLoad(url, [failing], { connections: 2, pipelining: 2, duration: 0.2 });
    expect(r.totalRequests).to.be.greaterThan(0);
    expect(r.non2xx).to.equal(r.totalRequests);
    expect(r.errors).to.equal(0);
  });

  it('reads an unlabelled counter, and NaN when the server has none', async () => {
    const { counterValue } = await load<{ counterValue(text: string, metric: string): number }>(
      'subscriptions.mjs',
    );
    const text = [
      '# TYPE rollup_router_signature_poll_rounds_total counter',
      'rollup_router_signature_poll_rounds_total_other 99',
      'rollup_router_signature_poll_rounds_total 12',
    ].join('\n');
    expect(counterValue(text, 'rollup_router_signature_poll_rounds_total')).to.equal(12);
    expect(Number.isNaN(counterValue('', 'rollup_router_signature_poll_rounds_total'))).to.equal(true);
  });

  it('says ok only for ceil(pending/256) requests per round with nothing notified', async () => {
    const { subscriptionLines } = await load<{ subscriptionLines(r: object): string }>('subscriptions.mjs');
    const memory = {
      sockets: 10,
      subscriptions: 10000,
      heapBytesPerSocket: 1,
      heapBytesPerSubscription: 1,
      rssBytesPerSubscription: 1,
      gcExposed: true,
    };
    const poll = (perRound: number, notified = 0) => ({
      pending: 10000,
      expected: 40,
      notified,
      rounds: 5,
      requests: perRound * 5,
      perRound,
    });
    expect(subscriptionLines({ memory, poll: poll(40) })).to.match(/= 40\): ok$/);
    expect(subscriptionLines({ memory, poll: poll(10000) })).to.match(/NOT as expected$/);
    expect(subscriptionLines({ memory, poll: poll(40, 3) })).to.match(/NOT as expected \(3 notified\)$/);
  });

  it('the upstream stand-in answers a pending signature null until it learns it', async () => {
    const { startTarget } = await load<{
      startTarget(script: string): Promise<{ url: string; stop(): Promise<void> }>;
    }>('processes.mjs');
    const { tellStandIn } = await load<{ tellStandIn(u: string, l: string, s: string[]): Promise<void> }>(
      'subscribers.mjs',
    );
    const helper = await startTarget('upstream-standin.mjs');
    const ask = async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getSignatureStatuses',
        params: [['a', 'b']],
      });
      const res = await fetch(helper.url, { method: 'POST', body });
      return ((await res.json()) as { result: { value: unknown[] } }).result.value.map((v) => v !== null);
    };
    try {
      expect(await ask()).to.deep.equal([true, true]);
      await tellStandIn(helper.url, 'pending', ['b']);
      expect(await ask()).to.deep.equal([true, false]);
      await tellStandIn(helper.url, 'learn', ['b']);
      expect(await ask()).to.deep.equal([true, true]);
    } finally {
      await helper.stop();
    }
  });
});
