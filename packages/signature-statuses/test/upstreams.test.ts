import { expect } from 'chai';
import {
  signatureStatusesPlugin,
  type SignatureStatusesOptions,
  type UpstreamCallOutcome,
} from '../src/index.js';
import { randomSignature, randomSignatures, status } from '@rollup-router/test-support/solana';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

interface RpcAnswer {
  result?: { context: { apiVersion: string; slot: number }; value: unknown[] };
  error?: {
    code: number;
    message: string;
    /** The plugin's own code; on the wire the error's code is -32603, which clients know. */
    data?: { code?: number; upstreams?: { url: string; cause: string; detail: string }[] };
  };
}

const call = (signatures: string[]) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'getSignatureStatuses',
  params: [signatures],
});

describe('getSignatureStatuses: upstreams', () => {
  const standIns: SolanaStandIn[] = [];
  let served: Served | undefined;
  const calls: { url: string; outcome: UpstreamCallOutcome }[] = [];

  const upstreams = async (...slots: number[]) => {
    const started = await Promise.all(slots.map((s) => SolanaStandIn.start(s)));
    standIns.push(...started);
    return started;
  };
  const start = async (options: SignatureStatusesOptions) => {
    served = await serve([
      signatureStatusesPlugin({
        upstreamTimeoutMs: 300,
        onUpstreamCall: (url, outcome) => calls.push({ url, outcome }),
        ...options,
      }),
    ]);
    return served;
  };
  const ask = async (signatures: string[]) => (await served!.post(call(signatures))).json as RpcAnswer;

  afterEach(async () => {
    await served?.close();
    served = undefined;
    await Promise.all(standIns.splice(0).map((s) => s.close()));
    calls.length = 0;
  });

  describe('fan-out and merge', () => {
    it('asks every upstream and keeps the most advanced status per signature', async () => {
      const [a, b] = await upstreams(500, 700);
      const [s1, s2, s3, s4] = randomSignatures(4);
      a!.statuses.set(s1!, status('finalized', 400));
      b!.statuses.set(s1!, status('confirmed', 450)); // less advanced despite the higher slot
      a!.statuses.set(s2!, status('processed', 300));
      b!.statuses.set(s2!, status('processed', 310, 'AccountInUse')); // same level, higher slot wins
      b!.statuses.set(s3!, status('confirmed', 320));
      await start({ upstreams: [{ url: a!.url }, { url: b!.url }] });

      const answer = await ask([s1!, s2!, s3!, s4!]);
      expect(answer.result?.value).to.deep.equal([
        a!.statuses.get(s1!),
        b!.statuses.get(s2!),
        b!.statuses.get(s3!),
        null,
      ]);
      expect(answer.result?.context.slot).to.equal(700);
      expect(a!.requestCount).to.equal(1);
      expect(b!.requestCount).to.equal(1);
    });

    it('answers when one upstream fails and another answers', async () => {
      const [good, bad] = await upstreams(10, 20);
      bad!.behaviour = { kind: 'http-500' };
      const sig = randomSignature();
      good!.statuses.set(sig, status('finalized', 5));
      await start({ upstreams: [{ url: bad!.url }, { url: good!.url }] });
      const answer = await ask([sig]);
      expect(answer.result?.value).to.deep.equal([good!.statuses.get(sig)]);
      expect(calls.map((c) => c.outcome)).to.have.members(['ok', 'bad_response']);
    });

    it('asks the extra upstreams given at call time, once each even when also configured', async () => {
      const [configured, extra] = await upstreams(10, 20);
      const sig = randomSignature();
      extra!.statuses.set(sig, status('finalized', 15));
      let extras: string[] = [];
      await start({ upstreams: [{ url: configured!.url }], extraUpstreams: () => extras });
      expect((await ask([sig])).result?.value).to.deep.equal([null]);
      extras = [extra!.url, `${configured!.url}/`];
      expect((await ask([sig])).result?.value).to.deep.equal([extra!.statuses.get(sig)]);
      expect(configured!.requestCount).to.equal(2);
      expect(extra!.requestCount).to.equal(1);
    });
  });

  describe('when no upstream can answer', () => {
    const cases: { behaviour: SolanaStandIn['behaviour']; code: number; cause: string }[] = [
      { behaviour: { kind: 'hang' }, code: -32060, cause: 'timeout' },
      { behaviour: { kind: 'http-500' }, code: -32062, cause: 'bad_response' },
      { behaviour: { kind: 'garbage' }, code: -32062, cause: 'bad_response' },
      { behaviour: { kind: 'wrong-length' }, code: -32062, cause: 'bad_response' },
      { behaviour: { kind: 'schema-invalid' }, code: -32062, cause: 'bad_response' },
      { behaviour: { kind: 'reset' }, code: -32061, cause: 'unreachable' },
    ];
    for (const { behaviour, code, cause } of cases) {
      it(`${behaviour.kind} → ${code}, naming the upstream and cause`, async () => {
        const [up] = await upstreams(1);
        up!.behaviour = behaviour;
        up!.statuses.set(randomSignature(), status('finalized', 1));
        await start({ upstreams: [{ url: up!.url }] });
        const answer = await ask(randomSignatures(2));
        expect(answer.error?.code).to.equal(-32603);
        expect(answer.error?.data?.code).to.equal(code);
        expect(answer.error?.data?.upstreams).to.have.length(1);
        expect(answer.error?.data?.upstreams?.[0]).to.include({ url: up!.url, cause });
        expect(JSON.stringify(answer.error)).to.not.match(/\bat .*\(|node_modules|\/work\//);
      });
    }

    it('a refused connection → -32061 with the cause', async () => {
      const [up] = await upstreams(1);
      const url = up!.url;
      await standIns.pop()!.close(); // nothing listens there any more
      await start({ upstreams: [{ url }] });
      const answer = await ask([randomSignature()]);
      expect(answer.error?.data?.code).to.equal(-32061);
      expect(calls.map((c) => c.outcome)).to.deep.equal(['unreachable']);
      expect(answer.error?.data?.upstreams?.[0]?.detail).to.equal('ECONNREFUSED');
    });

    it('a reset connection is retried once; a timeout is not retried', async () => {
      const [resetting, hanging] = await upstreams(1, 2);
      resetting!.behaviour = { kind: 'reset' };
      hanging!.behaviour = { kind: 'hang' };
      await start({ upstreams: [{ url: resetting!.url }, { url: hanging!.url, timeoutMs: 100 }] });
      const answer = await ask([randomSignature()]);
      // Mixed causes: a timeout is reported over an unreachable upstream.
      expect(answer.error?.data?.code).to.equal(-32060);
      expect(resetting!.requestCount).to.equal(2);
      expect(hanging!.requestCount).to.equal(1);
    });

    it("passes an upstream's own JSON-RPC error through unchanged", async () => {
      const [up] = await upstreams(1);
      const error = { code: -32602, message: 'Too many inputs provided; max 100', data: { hint: 'x' } };
      up!.behaviour = { kind: 'rpc-error', error };
      await start({ upstreams: [{ url: up!.url }] });
      expect((await ask([randomSignature()])).error).to.deep.equal(error);
      expect(calls.map((c) => c.outcome)).to.deep.equal(['rpc_error']);
    });

    it('no upstream configured → -32063 for an unknown signature', async () => {
      await start({});
      const answer = await ask([randomSignature()]);
      expect(answer.error?.data?.code).to.equal(-32063);
    });

    it('hides the path and query of an upstream URL (API keys live there)', async () => {
      const [up] = await upstreams(1);
      up!.behaviour = { kind: 'http-500' };
      await start({ upstreams: [{ url: `${up!.url}/secret-key?api-key=hunter2` }] });
      const answer = await ask([randomSignature()]);
      expect(JSON.stringify(answer)).to.not.contain('hunter2').and.not.contain('secret-key');
      expect(calls[0]?.url).to.equal(`${up!.url}/…`);
    });

    it('hides them for an extra upstream given at call time too', async () => {
      const [up] = await upstreams(1);
      up!.behaviour = { kind: 'http-500' };
      await start({ extraUpstreams: () => [`${up!.url}/secret-key?api-key=hunter2`] });
      const answer = await ask([randomSignature()]);
      expect(JSON.stringify(answer)).to.not.contain('hunter2').and.not.contain('secret-key');
      expect(answer.error?.data?.upstreams?.map((u) => u.url)).to.deep.equal([`${up!.url}/…`]);
      expect(calls.map((c) => c.url)).to.deep.equal([`${up!.url}/…`]);
    });
  });

  describe('affinity', () => {
    it('asks a tracked signature of its upstream only, when that upstream knows it', async () => {
      const [sentTo, other] = await upstreams(10, 20);
      const sig = randomSignature();
      sentTo!.statuses.set(sig, status('confirmed', 9));
      const plugin = signatureStatusesPlugin({
        upstreams: [{ url: other!.url }, { url: sentTo!.url, name: 'sent-to' }],
      });
      served = await serve([plugin]);
      expect(plugin.track(sig, sentTo!.url)).to.equal(true);
      const answer = await ask([sig]);
      expect(answer.result?.value).to.deep.equal([sentTo!.statuses.get(sig)]);
      expect(sentTo!.requestCount).to.equal(1);
      expect(other!.requestCount).to.equal(0);
    });

    it('tracks by a configured name too; an upstream that is not configured is never tracked, so never asked', async () => {
      const [configured, stranger] = await upstreams(10, 20);
      const [byName, toStranger] = randomSignatures(2);
      configured!.statuses.set(byName!, status('confirmed', 9));
      stranger!.statuses.set(toStranger!, status('finalized', 9));
      const plugin = signatureStatusesPlugin({ upstreams: [{ url: configured!.url, name: 'main' }] });
      served = await serve([plugin]);
      expect(plugin.track(byName!, 'main')).to.equal(true);
      expect(plugin.track(toStranger!, stranger!.url)).to.equal(false);
      expect((await ask([byName!, toStranger!])).result?.value).to.deep.equal([
        configured!.statuses.get(byName!),
        null,
      ]);
      expect(stranger!.requestCount).to.equal(0);
    });

    it('falls back to the fan-out when the tracked upstream does not know it or fails', async () => {
      const [sentTo, other] = await upstreams(10, 20);
      const [unknownThere, failing] = randomSignatures(2);
      other!.statuses.set(unknownThere!, status('finalized', 3));
      other!.statuses.set(failing!, status('finalized', 4));
      const plugin = signatureStatusesPlugin({ upstreams: [{ url: sentTo!.url }, { url: other!.url }] });
      served = await serve([plugin]);
      plugin.track(unknownThere!, sentTo!.url);
      let answer = await ask([unknownThere!]);
      expect(answer.result?.value).to.deep.equal([other!.statuses.get(unknownThere!)]);
      // sentTo already said null: the fan-out does not ask it again.
      expect(sentTo!.askedAbout(unknownThere!)).to.equal(1);

      sentTo!.behaviour = { kind: 'http-500' };
      plugin.track(failing!, sentTo!.url);
      answer = await ask([failing!]);
      expect(answer.result?.value).to.deep.equal([other!.statuses.get(failing!)]);
    });
  });

  describe('observability hooks', () => {
    it('onLookup counts what each layer settled', async () => {
      const [up] = await upstreams(10);
      const [fin, unknown] = randomSignatures(2);
      up!.statuses.set(fin!, status('finalized', 8));
      const counts: [string, number][] = [];
      await start({ upstreams: [{ url: up!.url }], onLookup: (layer, n) => counts.push([layer, n]) });
      await ask([fin!, unknown!, fin!]);
      await ask([fin!, unknown!]);
      expect(counts).to.deep.equal([
        ['upstream', 1],
        ['unknown', 1],
        ['memory', 1],
        ['unknown', 1],
      ]);
    });

    it('a hook that throws does not fail the call', async () => {
      const [up] = await upstreams(10);
      await start({
        upstreams: [{ url: up!.url }],
        onLookup: () => {
          throw new Error('bad hook');
        },
        onUpstreamCall: () => {
          throw new Error('bad hook');
        },
      });
      expect((await ask([randomSignature()])).result?.value).to.deep.equal([null]);
    });
  });
});
