// The typed client (`@rollup-router/core/client`) against the reference server, over
// HTTP and WebSocket, typed from the plugins' own method definitions.
import { expect } from 'chai';
import { createClient, RpcCallError } from '@rollup-router/core/client';
import type { getRoutesMethod } from '@rollup-router/routes';
import type { getSignatureStatusesMethod, signatureSubscription } from '@rollup-router/signature-statuses';
import { startWith } from '@rollup-router/test-support/ws-server';
import { finalized, signature, standInUpstream, type StandIn } from './server.harness.js';

type Api = {
  getRoutes: ReturnType<typeof getRoutesMethod>;
  getSignatureStatuses: ReturnType<typeof getSignatureStatusesMethod>;
};
type Subscriptions = { signatureSubscribe: ReturnType<typeof signatureSubscription> };

describe('reference server: the typed client', function () {
  this.timeout(30_000);
  let upstream: StandIn;
  let server: Awaited<ReturnType<typeof startWith>>;

  before(async () => {
    upstream = await standInUpstream();
    server = await startWith({ statuses: { upstreams: [{ url: upstream.url }] } });
  });
  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await upstream?.close();
  });

  for (const transport of ['http', 'ws'] as const) {
    it(`calls getRoutes and getSignatureStatuses typed, one by one and in a batch, over ${transport}`, async () => {
      const sig = signature();
      upstream.statuses.set(sig, finalized(91));
      const url = transport === 'http' ? server.url : server.url.replace('http', 'ws');
      const client = createClient<Api, Subscriptions>(url, { timeoutMs: 10_000 });
      try {
        const routes = await client.getRoutes();
        expect(routes).to.be.an('array');
        const statuses = await client.getSignatureStatuses([[sig]]);
        expect(statuses.value[0]?.slot).to.equal(91);
        const [a, b] = await client.$batch((call) => [call.getRoutes(), call.getSignatureStatuses([['x']])]);
        expect(a.ok).to.equal(true);
        expect(b.ok).to.equal(false);
        if (!b.ok) expect(b.error).to.be.instanceOf(RpcCallError).and.to.have.property('code', -32602);
        if (transport === 'ws') {
          const subscription = await client.$subscribe('signatureSubscribe', [sig]);
          for await (const notification of subscription) {
            expect(notification.value).to.have.property('err', null);
            break;
          }
        }
      } finally {
        await client.$close();
      }
    });
  }
});
