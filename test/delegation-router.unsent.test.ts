// A transaction an app sent straight to its ER, not through the router: the base chain has
// never seen it, so getTransaction and getSignatureStatuses ask the vetted ERs (served for
// that call, never kept). The ER is a stand-in answering fixed results (B takes no
// transaction whose payer is not delegated); the base chain passes through to validator A.
import { expect } from 'chai';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { newIdentity, randomSignature } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { rpcCall, type RpcReply } from '@rollup-router/test-support/http';
import { serveWith, tempDir, type ServerProcess } from './server.harness.js';

describe('delegation router: a transaction sent straight to a vetted ER', function () {
  this.timeout(60_000);
  let base: DelegationChain;
  let er: DelegationChain;
  let server: ServerProcess;
  let dir: ReturnType<typeof tempDir>;
  const signature = randomSignature();
  const status = {
    slot: 9,
    confirmations: null,
    err: null,
    status: { Ok: null },
    confirmationStatus: 'finalized',
  };

  const call = (method: string, params: unknown): Promise<RpcReply> => rpcCall(server.base, method, params);

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    [base, er] = await Promise.all([DelegationChain.start(VALIDATOR_A), DelegationChain.start(VALIDATOR_A)]);
    er.fixedResults.set('getTransaction', { slot: 9, meta: { err: null } });
    er.fixedResults.set('getSignatureStatuses', {
      context: { apiVersion: '2.2.1', slot: 9 },
      value: [status],
    });
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: {
        routes: [{ identity: newIdentity(), fqdn: er.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' }],
        allowInsecure: true,
      },
      delegation: { baseChain: { url: base.url, wsUrl: base.wsUrl } },
      statuses: { store: false },
      websocket: { port: false },
    });
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    await base?.close();
    await er?.close();
  });

  it("getTransaction is the ER's when the base chain has nothing", async () => {
    expect((await call('getTransaction', [signature, { encoding: 'json' }])).result).to.deep.equal({
      slot: 9,
      meta: { err: null },
    });
    expect(base.methods).to.include('getTransaction');
  });

  it("getSignatureStatuses is the ER's when the base chain has nothing, and is not kept", async () => {
    const first = (await call('getSignatureStatuses', [[signature]])).result as { value: unknown[] };
    expect(first.value).to.deep.equal([status]);
    er.fixedResults.set('getSignatureStatuses', { context: { apiVersion: '2.2.1', slot: 9 }, value: [null] });
    const second = (await call('getSignatureStatuses', [[signature]])).result as { value: unknown[] };
    expect(second.value).to.deep.equal([null]);
  });
});
