// signatureSubscribe polls every distinct pending signature upstream each round: the
// service caps how many distinct signatures may be pending (statuses.subscriptions.
// maxPendingSignatures), so one client cannot drive the upstream requests without bound.
// Through the reference server and real sockets.
import { expect } from 'chai';
import { get, sample, signature, standInUpstream, type StandIn } from './server.harness.js';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import { startWith } from '@rollup-router/test-support/ws-server';

describe('signatureSubscribe: at most maxPendingSignatures distinct pending signatures', function () {
  this.timeout(30_000);
  let upstream: StandIn;
  before(async () => {
    upstream = await standInUpstream();
  });
  after(() => upstream.close());

  it('refuses a subscribe for a new signature over the cap with -32064; a pending signature may still be joined; a freed place is taken again', async () => {
    const server = await startWith({
      statuses: { upstreams: [{ url: upstream.url }], subscriptions: { maxPendingSignatures: 3 } },
    });
    const sockets: TestSocket[] = [];
    try {
      const first = await TestSocket.open(server.websocketUrl!);
      const second = await TestSocket.open(server.websocketUrl!);
      sockets.push(first, second);
      const [a, b, c, d] = [signature(), signature(), signature(), signature()];
      const ids: number[] = [];
      for (const [i, sig] of [a, b, c].entries()) {
        const answer = await first.call('signatureSubscribe', [sig], i + 1);
        expect(answer.result, JSON.stringify(answer)).to.be.a('number');
        ids.push(answer.result as number);
      }

      const refused = await second.call('signatureSubscribe', [d], 10);
      expect(refused.id).to.equal(10);
      expect(refused.error).to.deep.equal({
        code: -32603,
        message: 'Too many pending signatures',
        data: { code: -32064, limit: 3 },
      });
      // A signature already pending costs no more upstream requests: it may be joined.
      const joined = await second.call('signatureSubscribe', [a, { commitment: 'confirmed' }], 11);
      expect(joined.result, JSON.stringify(joined)).to.be.a('number');

      expect((await first.call('signatureUnsubscribe', [ids[2]], 4)).result).to.equal(true);
      const taken = await second.call('signatureSubscribe', [d], 12);
      expect(taken.result, JSON.stringify(taken)).to.be.a('number');

      const metrics = (await get(`${server.url.replace(/\/$/, '')}/metrics`)).text;
      expect(sample(metrics, 'rollup_router_signature_subscriptions_refused_total')).to.equal(1);
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
      await server.shutdown(0);
      server.cleanup();
    }
  });
});
