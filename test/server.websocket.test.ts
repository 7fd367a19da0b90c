// The reference server's sockets: the upgrade on `port` and the second listener, access
// control from the config, and the graceful stop (calls under way answered, then 1001).
import { expect } from 'chai';
import { finalized, signature, standInUpstream, type StandIn } from './server.harness.js';
import { refusedUpgrade, TestSocket } from '@rollup-router/test-support/ws-client';
import { startWith } from '@rollup-router/test-support/ws-server';

describe('reference server: JSON-RPC over WebSocket', function () {
  this.timeout(30_000);
  let upstream: StandIn;
  before(async () => {
    upstream = await standInUpstream();
  });
  after(() => upstream.close());

  it('serves the socket by upgrade on its port and on the second listener; both answer every method', async () => {
    const server = await startWith({ statuses: { upstreams: [{ url: upstream.url }] } });
    try {
      const sig = signature();
      upstream.statuses.set(sig, finalized(77));
      for (const url of [server.url.replace('http', 'ws'), server.websocketUrl!]) {
        const c = await TestSocket.open(url);
        const answer = await c.call('getSignatureStatuses', [[sig]]);
        expect(answer.result).to.deep.equal({
          context: { apiVersion: '2.2.1', slot: 4242 },
          value: [finalized(77)],
        });
        expect((await c.call('getRoutes', [], 2)).result).to.be.an('array');
        await c.close();
      }
    } finally {
      await server.shutdown(0);
      server.cleanup();
    }
  });

  it('websocket.port false: no second listener; the upgrade on the port still works; API keys apply to upgrades', async () => {
    const server = await startWith({ websocket: { port: false }, apiKeys: ['secret-key-1'] });
    try {
      expect(server.websocketUrl).to.equal(undefined);
      const ws = server.url.replace('http', 'ws');
      expect((await refusedUpgrade(ws)).status).to.equal(401);
      const c = await TestSocket.open(`${ws}?api-key=secret-key-1`);
      expect((await c.call('getRoutes', [])).result).to.be.an('array');
      await c.close();
    } finally {
      await server.shutdown(0);
      server.cleanup();
    }
  });

  it('shutdown: a call under way is answered, then its socket closes with 1001; a closed socket frees its subscriptions', async () => {
    const server = await startWith({ statuses: { upstreams: [{ url: upstream.url }] } });
    upstream.delayMs = 300;
    try {
      const c = await TestSocket.open(server.websocketUrl!);
      const idle = await TestSocket.open(server.websocketUrl!);
      expect((await idle.call('signatureSubscribe', [signature()])).result).to.be.a('number');
      expect(server.rpc.subscriptions.active).to.equal(1);
      c.send(
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getSignatureStatuses', params: [[signature()]] }),
      );
      await new Promise((r) => setTimeout(r, 50));
      const stopping = server.shutdown(5000);
      const answer = await c.next();
      expect(answer.id).to.equal(7);
      expect(answer.result).to.have.property('value');
      expect((await c.closed).code).to.equal(1001);
      expect((await idle.closed).code).to.equal(1001);
      await stopping;
      expect(server.rpc.subscriptions.active).to.equal(0);
    } finally {
      upstream.delayMs = 0;
      server.cleanup();
    }
  });
});
