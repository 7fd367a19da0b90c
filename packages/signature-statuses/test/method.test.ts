import { expect } from 'chai';
import { signatureStatusesPlugin } from '../src/index.js';
import { capture, CAPTURES_DIR, hasCaptures } from '@rollup-router/test-support/captures';
import { randomSignature, randomSignatures, status } from '@rollup-router/test-support/solana';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: { context: { apiVersion: string; slot: number }; value: unknown[] };
  error?: { code: number; message: string; data?: unknown } | null;
}

const call = (params: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'getSignatureStatuses',
  params,
});

describe('getSignatureStatuses: the method as callers see it', () => {
  let upstream: SolanaStandIn;
  let served: Served;

  beforeEach(async () => {
    upstream = await SolanaStandIn.start(4242);
    served = await serve([signatureStatusesPlugin({ upstreams: [{ url: upstream.url }] })]);
  });
  afterEach(async () => {
    await served.close();
    await upstream.close();
  });

  describe('params errors, as the real validator answers them', function () {
    before(function () {
      if (!hasCaptures()) {
        console.log(`      skipped: no captured validator answers in ${CAPTURES_DIR} (set PEERS_CAPTURES)`);
        this.skip();
      }
    });

    for (const name of [
      'sigstatus-257',
      'sigstatus-invalid-base58',
      'sigstatus-short-base58',
      'sigstatus-known-then-invalid',
    ]) {
      it(`${name}: same code and message as the validator`, async () => {
        const c = capture('validator', name);
        const ours = (await served.post(c.request.body)).json as RpcAnswer;
        const theirs = c.response.json as RpcAnswer;
        expect(ours.error).to.deep.equal(theirs.error);
        expect(ours.id).to.equal(theirs.id);
        expect(upstream.requestCount).to.equal(0);
      });
    }

    for (const name of [
      'sigstatus-known-bad-config',
      'sigstatus-known-extra-params',
      'sigstatus-non-string-item',
      'sigstatus-params-empty',
      'sigstatus-params-missing',
      'sigstatus-named-params',
      'sigstatus-string-not-list',
    ]) {
      it(`${name}: rejected with the validator's code, -32602, naming the failing path`, async () => {
        const c = capture('validator', name);
        const ours = (await served.post(c.request.body)).json as RpcAnswer;
        expect(ours.error?.code).to.equal((c.response.json as RpcAnswer).error?.code);
        expect(ours.error?.data)
          .to.have.property('path')
          .that.matches(/^\/params/);
        expect(upstream.requestCount).to.equal(0);
      });
    }

    it('256 signatures are accepted (sigstatus-256), one null each when no one knows them', async () => {
      const c = capture('validator', 'sigstatus-256');
      const ours = (await served.post(c.request.body)).json as RpcAnswer;
      expect(ours.result?.value).to.deep.equal((c.response.json as RpcAnswer).result?.value);
      expect(ours.result?.value).to.have.length(256);
    });

    it('an empty list answers an empty value (sigstatus-empty-array) without asking any upstream', async () => {
      const c = capture('validator', 'sigstatus-empty-array');
      const ours = (await served.post(c.request.body)).json as RpcAnswer;
      expect(ours.result?.value).to.deep.equal((c.response.json as RpcAnswer).result?.value);
      expect(upstream.requestCount).to.equal(0);
    });
  });

  it('a config with another key than searchTransactionHistory is -32602', async () => {
    const ours = (await served.post(call([[randomSignature()], { commitment: 'finalized' }])))
      .json as RpcAnswer;
    expect(ours.error?.code).to.equal(-32602);
    expect(ours.error?.data).to.include({ path: '/params/1/commitment', rule: 'additionalProperties' });
  });

  it('searchTransactionHistory is passed on to the upstream; null config is the same as none', async () => {
    const [a, b] = randomSignatures(2);
    await served.post(call([[a], { searchTransactionHistory: true }]));
    const ours = (await served.post(call([[b], null]))).json as RpcAnswer;
    expect(ours.result?.value).to.deep.equal([null]);
    expect(upstream.requests.map((r) => r.config)).to.deep.equal([
      { searchTransactionHistory: true },
      undefined,
    ]);
  });

  it('one entry per signature in request order, duplicates included, each distinct signature asked once', async () => {
    const [known, other, unknown] = randomSignatures(3);
    upstream.statuses.set(known!, status('finalized', 17));
    upstream.statuses.set(other!, status('confirmed', 20, { InstructionError: [0, { Custom: 1 }] }));
    const list = [unknown!, known!, other!, known!, unknown!];
    const ours = (await served.post(call([list]))).json as RpcAnswer;
    expect(ours.result?.value).to.deep.equal(list.map((s) => upstream.statuses.get(s) ?? null));
    expect(upstream.requests).to.have.length(1);
    expect(upstream.requests[0]!.signatures).to.have.members([unknown, known, other]).and.have.length(3);
  });

  it('path-style success carries "error": null; the root endpoint has no error member', async () => {
    const path = await served.post(call([[randomSignature()]]), '/getSignatureStatuses');
    const root = await served.post(call([[randomSignature()]]), '/');
    expect(path.json).to.have.property('error', null);
    expect(path.json).to.have.nested.property('result.value');
    expect(root.json).to.not.have.property('error');
    expect(root.json).to.have.nested.property('result.value');
  });

  it('writes results with the validator key order even when the upstream uses another', async () => {
    const sig = randomSignature();
    upstream.routerKeyOrder = true;
    upstream.statuses.set(sig, status('finalized', 99, 'BlockhashNotFound'));
    const { text } = await served.post(call([[sig]]));
    const result = (JSON.parse(text) as RpcAnswer).result!;
    expect(Object.keys(result.context)).to.deep.equal(Object.keys(result.context).sort());
    expect(Object.keys(result.value[0] as object)).to.deep.equal(
      Object.keys(result.value[0] as object).sort(),
    );
    expect(text).to.contain(JSON.stringify(status('finalized', 99, 'BlockhashNotFound')));
  });

  it('context carries the upstream slot and apiVersion', async () => {
    upstream.apiVersion = '9.9.9';
    const ours = (await served.post(call([[randomSignature()]]))).json as RpcAnswer;
    expect(ours.result?.context).to.deep.equal({ apiVersion: '9.9.9', slot: upstream.slot });
  });
});
