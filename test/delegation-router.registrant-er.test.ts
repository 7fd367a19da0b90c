// An ER anyone registered: a record in the real MDP registry on validator A points at an ER
// stand-in on loopback (routes.chain.allowPrivateAddresses lets the router call it). With
// no allow-list it is routable, but nothing it answers is remembered for other clients: a
// copied signature, a blockhash, a transaction the base chain does not know. The base
// chain is a stand-in holding delegation records, passing everything else to validator A.
import { expect } from 'chai';
import type { KeyPairSigner } from '@solana/kit';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import {
  CHAIN_URL,
  fundedIdentity,
  register,
  unregister,
  untilRouted,
} from '@rollup-router/test-support/mdp';
import { newIdentity } from '@rollup-router/test-support/solana';
import { transferWriting, withSignature } from '@rollup-router/test-support/transfers';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import bs58 from 'bs58';
import { rpcCall, type RpcReply } from '@rollup-router/test-support/http';
import { serveWith, tempDir, type ServerProcess } from './server.harness.js';

describe('delegation router: an ER anyone registered on chain decides nothing for other clients', function () {
  this.timeout(60_000);
  let base: DelegationChain;
  let er: DelegationChain;
  let signer: KeyPairSigner | undefined;
  let server: ServerProcess;
  let dir: ReturnType<typeof tempDir>;

  const call = (method: string, params: unknown): Promise<RpcReply> => rpcCall(server.base, method, params);

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    [base, er] = await Promise.all([DelegationChain.start(VALIDATOR_A), DelegationChain.start(VALIDATOR_A)]);
    signer = await fundedIdentity();
    await register(signer, { addr: er.url });
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: { chain: { url: CHAIN_URL, allowPrivateAddresses: true }, allowInsecure: true },
      delegation: { baseChain: { url: base.url, wsUrl: base.wsUrl } },
      statuses: { store: false },
      websocket: { port: false },
    });
    await untilRouted(server.base, signer.address);
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    if (signer) await unregister(signer);
    await base?.close();
    await er?.close();
  });

  it("a base-chain transaction's signature copied onto a transaction for the registrant's ER: getTransaction still asks the base chain", async () => {
    const account = newIdentity();
    await base.delegate(account, signer!.address);
    const victim = transferWriting(newIdentity());
    er.fixedResults.set('sendTransaction', victim.signature);
    er.fixedResults.set('getTransaction', { slot: 9, meta: { err: null } });
    const forged = withSignature(transferWriting(account).wire, victim.signature!);
    expect((await call('sendTransaction', [forged, { encoding: 'base64' }])).result).to.equal(
      victim.signature,
    );
    await call('getTransaction', [victim.signature, { encoding: 'json' }]);
    expect(er.methods).to.not.include('getTransaction');
    expect(base.methods).to.include('getTransaction');
  });

  it("a blockhash the registrant's ER hands out is not remembered for other clients", async () => {
    const account = newIdentity();
    await base.delegate(account, signer!.address);
    const blockhash = bs58.encode(new Uint8Array(32).fill(9));
    er.fixedResults.set('getLatestBlockhash', {
      context: { slot: 9 },
      value: { blockhash, lastValidBlockHeight: 150 },
    });
    expect((await call('getBlockhashForAccounts', [[account]])).result).to.include({ blockhash });
    await call('isBlockhashValid', [blockhash]);
    expect(er.methods).to.not.include('isBlockhashValid');
  });

  it("a signature the base chain does not know is never asked of the registrant's ER", async () => {
    const { signature } = transferWriting(newIdentity());
    await call('getTransaction', [signature, { encoding: 'json' }]);
    await call('getSignatureStatuses', [[signature]]);
    expect(er.methods.filter((m) => m === 'getTransaction' || m === 'getSignatureStatuses')).to.deep.equal(
      [],
    );
  });
});
