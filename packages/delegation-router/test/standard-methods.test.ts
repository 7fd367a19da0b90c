// The standard methods routed by delegation, against loopback stand-ins of the base chain
// and an ER (the delegation program has no binary we can reach): which upstream gets each
// call, the reply caps, and the errors.
import { expect } from 'chai';
import bs58 from 'bs58';
import { TransactionMessage } from '@solana/web3.js';
import { routesPlugin } from '@rollup-router/routes';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { newIdentity, routeEntry } from '@rollup-router/test-support/solana';
import { causeOf } from '@rollup-router/test-support/wire-error';
import { TEST_BLOCKHASH, transferWriting } from '@rollup-router/test-support/transfers';
import { delegationRouterPlugin } from '../src/index.js';

interface Reply {
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

describe('standard methods routed by delegation (stand-ins of the base chain and an ER)', function () {
  this.timeout(20_000);
  let base: DelegationChain;
  let er: DelegationChain;
  let served: Served | undefined;
  const erIdentity = newIdentity();

  const call = async (method: string, params: unknown): Promise<Reply> =>
    (await served!.post({ jsonrpc: '2.0', id: 1, method, params })).json as Reply;

  beforeEach(async () => {
    [base, er] = await Promise.all([DelegationChain.start(undefined), DelegationChain.start(undefined)]);
    for (const chain of [base, er]) {
      chain.fixedResults.set('simulateTransaction', { context: { slot: 1 }, value: { err: null, logs: [] } });
      chain.fixedResults.set('getFeeForMessage', { context: { slot: 1 }, value: 5000 });
      chain.fixedResults.set('getBalance', { context: { slot: 1 }, value: 7 });
      chain.fixedResults.set('getVersion', { 'solana-core': 'x'.repeat(5000) });
    }
    const routes = routesPlugin({
      routes: [routeEntry({ identity: erIdentity, fqdn: er.url })],
      allowInsecure: true,
    });
    served = await serve([
      routes,
      delegationRouterPlugin({
        baseChain: { url: base.url, wsUrl: base.wsUrl },
        maxReplyBytes: { small: 1024 },
        registry: routes.registry,
      }),
    ]);
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
    await Promise.all([base.close(), er.close()]);
  });

  it('simulateTransaction and getFeeForMessage go to the chain that holds the writable accounts, unsigned too', async () => {
    const [delegated, plain] = [newIdentity(), newIdentity()];
    await base.delegate(delegated, erIdentity);
    const onEr = transferWriting(delegated, { signed: false }).tx;
    const simulated = await call('simulateTransaction', [
      onEr.serialize({ requireAllSignatures: false }).toString('base64'),
      { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true },
    ]);
    expect(simulated.result).to.deep.equal({ context: { slot: 1 }, value: { err: null, logs: [] } });
    expect(er.methods).to.include('simulateTransaction');
    const message = new TransactionMessage({
      payerKey: onEr.feePayer!,
      recentBlockhash: TEST_BLOCKHASH,
      instructions: onEr.instructions,
    }).compileToV0Message();
    await call('getFeeForMessage', [Buffer.from(message.serialize()).toString('base64')]);
    expect(er.methods).to.include('getFeeForMessage');
    expect(base.methods).to.not.include('simulateTransaction');
    await call('simulateTransaction', [bs58.encode(transferWriting(plain).tx.serialize())]);
    expect(base.methods).to.include('simulateTransaction');
  });

  it('an account-scoped read follows the delegation, and the base chain again after the undelegation', async () => {
    const account = newIdentity();
    await base.delegate(account, erIdentity);
    await call('getBalance', [account]);
    expect(er.methods).to.include('getBalance');
    await base.undelegate(account);
    for (let i = 0; i < 50 && !base.methods.includes('getBalance'); i++) {
      await call('getBalance', [account]);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(base.methods).to.include('getBalance');
  });

  it('a transaction or message that does not decode is -32074 saying why; the chains get nothing', async () => {
    for (const [method, params] of [
      ['simulateTransaction', ['AAAA', { encoding: 'base64' }]],
      ['getFeeForMessage', ['not base64!']],
    ] as const) {
      const { error } = await call(method, params);
      expect(causeOf(error), method).to.equal(-32074);
      expect(error?.data?.reason, method).to.be.a('string');
    }
    expect([...base.methods, ...er.methods].filter((m) => m !== 'getMultipleAccounts')).to.deep.equal([]);
  });

  it("a reply past its class's cap is -32076 naming the upstream, the method and the cap", async () => {
    const { error } = await call('getVersion', []);
    expect(causeOf(error)).to.equal(-32076);
    expect(error?.data).to.deep.equal({
      code: -32076,
      upstream: 'base-chain',
      method: 'getVersion',
      limitBytes: 1024,
    });
  });
});
