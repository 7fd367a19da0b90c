// What an ER may decide for other clients: nothing it answers is remembered unless it is
// the transaction's own signature, or a blockhash from a vetted ER that is not the base
// chain's; and routing calls only the ERs the operator allows. The base chain and the ERs
// are stand-ins on loopback (the delegation program has no binary we can reach): an ER
// that lies is a stand-in answering fixed results.
import { expect } from 'chai';
import { routesPlugin } from '@rollup-router/routes';
import { DelegationChain, U64_MAX } from '@rollup-router/test-support/delegation-chain';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { newIdentity, routeEntry } from '@rollup-router/test-support/solana';
import { causeOf } from '@rollup-router/test-support/wire-error';
import { TEST_BLOCKHASH, transferWriting } from '@rollup-router/test-support/transfers';
import { delegationRouterPlugin } from '../src/index.js';

interface Reply {
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

describe('the SDK router trusts only what the operator configured', function () {
  this.timeout(20_000);
  let base: DelegationChain;
  let er: DelegationChain;
  let other: DelegationChain;
  let served: Served | undefined;
  const erIdentity = newIdentity();
  const otherIdentity = newIdentity();

  const call = async (method: string, params: unknown): Promise<Reply> =>
    (await served!.post({ jsonrpc: '2.0', id: 1, method, params })).json as Reply;

  /** The router over a route table of both ERs, listed by the operator. */
  async function router(options: { allow?: string[] } = {}): Promise<void> {
    const routes = routesPlugin({
      routes: [
        routeEntry({ identity: erIdentity, fqdn: er.url }),
        routeEntry({ identity: otherIdentity, fqdn: other.url }),
      ],
      allowInsecure: true,
    });
    served = await serve([
      routes,
      delegationRouterPlugin({
        baseChain: { url: base.url },
        delegations: { follow: false, ttlMs: 60_000 },
        identity: { allow: options.allow },
        registry: routes.registry,
      }),
    ]);
  }

  beforeEach(async () => {
    [base, er, other] = await Promise.all([
      DelegationChain.start(undefined),
      DelegationChain.start(undefined),
      DelegationChain.start(undefined),
    ]);
    base.fixedResults.set('getTransaction', { slot: 7, meta: { err: { InstructionError: [0, 'Custom'] } } });
    base.fixedResults.set('getLatestBlockhash', {
      context: { slot: 7 },
      value: { blockhash: TEST_BLOCKHASH, lastValidBlockHeight: 150 },
    });
    base.fixedResults.set('isBlockhashValid', { context: { slot: 7 }, value: false });
    er.fixedResults.set('getTransaction', { slot: 9, meta: { err: null } });
    er.fixedResults.set('isBlockhashValid', { context: { slot: 9 }, value: true });
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
    await Promise.all([base.close(), er.close(), other.close()]);
  });

  it("an ER that answers another transaction's signature is a bad reply, and is never asked about that signature", async () => {
    await router();
    const [account, victim] = [newIdentity(), transferWriting(newIdentity())];
    await base.delegate(account, erIdentity);
    er.fixedResults.set('sendTransaction', victim.signature);
    const sent = await call('sendTransaction', [transferWriting(account).wire, { encoding: 'base64' }]);
    expect(causeOf(sent.error)).to.equal(-32071);
    expect(sent.error?.data).to.include({ upstream: `er:${erIdentity}`, kind: 'bad_reply' });
    // Every client's getTransaction of the victim's signature is the base chain's answer.
    const found = await call('getTransaction', [victim.signature, { encoding: 'json' }]);
    expect(found.result).to.deep.equal({ slot: 7, meta: { err: { InstructionError: [0, 'Custom'] } } });
    expect(er.methods).to.not.include('getTransaction');
  });

  it('a transaction signed by its fee payer and sent to an ER is asked of that ER first', async () => {
    await router();
    const account = newIdentity();
    await base.delegate(account, erIdentity);
    const own = transferWriting(account);
    er.fixedResults.set('sendTransaction', own.signature!);
    expect((await call('sendTransaction', [own.wire, { encoding: 'base64' }])).result).to.equal(
      own.signature,
    );
    expect((await call('getTransaction', [own.signature, { encoding: 'json' }])).result).to.deep.equal({
      slot: 9,
      meta: { err: null },
    });
  });

  it("an ER that hands out the base chain's blockhash does not become the one asked whether it is valid", async () => {
    await router();
    const account = newIdentity();
    await base.delegate(account, erIdentity);
    er.fixedResults.set('getLatestBlockhash', {
      context: { slot: 9 },
      value: { blockhash: TEST_BLOCKHASH, lastValidBlockHeight: 150 },
    });
    expect((await call('getBlockhashForAccounts', [[]])).result).to.include({ blockhash: TEST_BLOCKHASH });
    expect((await call('getBlockhashForAccounts', [[account]])).result).to.include({
      blockhash: TEST_BLOCKHASH,
    });
    expect((await call('isBlockhashValid', [TEST_BLOCKHASH])).result).to.deep.equal({
      context: { slot: 7 },
      value: false,
    });
    expect(er.methods).to.not.include('isBlockhashValid');
  });

  it('routing calls only allowed ERs: an account delegated to another listed ER is -32070 naming it, and that ER gets nothing', async () => {
    await router({ allow: [erIdentity] });
    const [account, elsewhere] = [newIdentity(), newIdentity()];
    await base.delegate(account, erIdentity);
    await base.delegate(elsewhere, otherIdentity);
    other.fixedResults.set('getAccountInfo', { context: { slot: 1 }, value: null });
    for (const [method, params] of [
      ['getAccountInfo', [elsewhere]],
      ['getBalance', [elsewhere]],
      ['getMultipleAccounts', [[account, elsewhere]]],
      ['getBlockhashForAccounts', [[elsewhere]]],
      ['sendTransaction', [transferWriting(elsewhere).wire, { encoding: 'base64' }]],
    ] as const) {
      const { error } = await call(method, params);
      expect(causeOf(error), method).to.equal(-32070);
      expect(error?.data, method).to.include({ identity: otherIdentity, reason: 'not_allowed' });
    }
    expect(other.methods).to.deep.equal([]);
  });

  it('an upstream that does not answer is named, never located: no URL, host or HTTP detail reaches the client', async () => {
    await router();
    await base.close();
    const { error } = await call('getAccountInfo', [newIdentity()]);
    expect(causeOf(error)).to.equal(-32071);
    expect(error?.data).to.deep.equal({ code: -32071, upstream: 'base-chain', kind: 'unreachable' });
    expect(JSON.stringify(error)).to.not.include('127.0.0.1');
  });

  it("a merged getMultipleAccounts carries the base chain's context, not the larger of two unrelated slot clocks", async () => {
    await router();
    const [delegated, plain] = [newIdentity(), newIdentity()];
    const { slot: baseSlot } = base.notifyAccount(newIdentity(), null);
    await base.delegate(delegated, erIdentity);
    // The ER's clock runs ahead of the base chain's.
    for (let i = 0; i < baseSlot + 50; i++) er.notifyAccount(newIdentity(), null);
    const { result } = await call('getMultipleAccounts', [[delegated, plain]]);
    expect((result as { context: { slot: number } }).context.slot).to.equal(baseSlot + 1);
  });

  it('a merged getMultipleAccounts keeps every byte the chains wrote: u64::MAX rentEpochs from the ER and the base chain', async () => {
    await router();
    // An account the ER holds (a record it stores), delegated to it on the base chain; and one the base chain holds.
    const onEr = await er.delegate(newIdentity(), newIdentity());
    await base.delegate(onEr, erIdentity);
    const onBase = await base.delegate(newIdentity(), newIdentity());
    const { text } = await served!.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'getMultipleAccounts',
      params: [[onEr, onBase], { encoding: 'base64' }],
    });
    expect(text.split(`"rentEpoch":${U64_MAX}`)).to.have.length(3);
    expect(er.methods).to.include('getMultipleAccounts');
  });
});
