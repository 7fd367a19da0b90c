// The statuses of base-chain transactions with several base-chain providers, through the
// built server: validator A behind two loopback proxies, `alpha` (preferred) that a test
// takes down, and `beta` that refuses any request without its API-key header. A real
// transfer on A is answered by getSignatureStatuses while alpha is down, beta's header is
// on every request, and the answer counts for the base chain in /ready and the metrics.
import { expect } from 'chai';
import { ChainProxy } from '@rollup-router/test-support/chain-proxy';
import { VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { CHAIN_URL, confirmed, fundedIdentity } from '@rollup-router/test-support/mdp';
import { signedTransfer, type SignedTransfer } from '@rollup-router/test-support/signed-transfer';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import type { KeyPairSigner } from '@solana/kit';
import { get, rpc, sample, serveWith, tempDir, type ServerProcess } from './server.harness.js';

interface Ready {
  readonly checks: { readonly baseChainProviders?: string; readonly upstreams?: string };
}

const API_KEY: readonly [string, string] = ['x-api-key', 'beta-key'];

const readyChecks = async (server: ServerProcess): Promise<Ready['checks']> =>
  (JSON.parse((await get(`${server.base}/ready`)).text) as Ready).checks;

/** A transfer A has confirmed, sent straight to A: nothing of ours knows it yet. */
async function landedTransfer(payer: KeyPairSigner): Promise<SignedTransfer> {
  const transfer = await signedTransfer(payer);
  const sent = await rpc(CHAIN_URL, {
    jsonrpc: '2.0',
    id: 1,
    method: 'sendTransaction',
    params: [transfer.wire, { encoding: 'base64' }],
  });
  expect(sent.json.result, sent.text).to.equal(transfer.signature);
  await confirmed(transfer.signature);
  return transfer;
}

describe('signature statuses: several base-chain providers', function () {
  this.timeout(120_000);
  let alpha: ChainProxy;
  let beta: ChainProxy;
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  let payer: KeyPairSigner;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    [alpha, beta] = await Promise.all([ChainProxy.start(), ChainProxy.start()]);
    beta.requiredHeader = API_KEY;
    payer = await fundedIdentity();
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: { routes: [] },
      delegation: {
        baseChain: {
          providers: [
            { name: 'alpha', url: alpha.url(), wsUrl: alpha.wsUrl() },
            { name: 'beta', url: beta.url(), wsUrl: beta.wsUrl(), headers: { [API_KEY[0]]: API_KEY[1] } },
          ],
          probeIntervalMs: 200,
          maxProbeIntervalMs: 400,
        },
      },
      statuses: { store: false },
      readiness: { upstreamProbeIntervalMs: 0 },
    });
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    await Promise.all([alpha?.close(), beta?.close()]);
  });

  it('answers the status of a transfer on the base chain while the first provider is down, through the second with its API-key header', async () => {
    const transfer = await landedTransfer(payer);
    alpha.failHttp = () => ({ status: 503 });
    const answer = await rpc(`${server.base}/`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [[transfer.signature]],
    });
    const value = (answer.json.result as { value?: ({ confirmationStatus?: string } | null)[] } | undefined)
      ?.value;
    expect(value?.[0], answer.text).to.be.an('object');
    expect(value![0]!.confirmationStatus).to.be.oneOf(['confirmed', 'finalized']);
    expect(beta.httpCount('getSignatureStatuses')).to.be.at.least(1);
    expect(beta.unauthorized, 'requests to beta without its header').to.equal(0);

    // The answer is the base chain's: under its provider's label in the metrics, and
    // evidence that the base chain answers in /ready.
    const metrics = (await get(`${server.base}/metrics`)).text;
    expect(
      sample(metrics, 'rollup_router_upstream_requests_total{upstream="base-chain:beta",outcome="ok"}'),
      metrics,
    ).to.be.at.least(1);
    const checks = await readyChecks(server);
    expect(checks.upstreams).to.match(/^base-chain: answered \d+ ms ago/);
    await waitFor(
      async () => (await readyChecks(server)).baseChainProviders?.includes('alpha: out, failing') === true,
      'alpha out in /ready',
    );
  });

  it('asks the first provider again once it is back, with the second still never asked without its header', async () => {
    alpha.failHttp = undefined;
    await waitFor(
      async () => (await readyChecks(server)).baseChainProviders?.includes('alpha: healthy') === true,
      'alpha healthy in /ready',
      { attempts: 600, stepMs: 50 },
    );
    const transfer = await landedTransfer(payer);
    const asked = alpha.httpCount('getSignatureStatuses');
    const answer = await rpc(`${server.base}/`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [[transfer.signature]],
    });
    const value = (answer.json.result as { value?: unknown[] } | undefined)?.value;
    expect(value?.[0], answer.text).to.be.an('object');
    expect(alpha.httpCount('getSignatureStatuses')).to.equal(asked + 1);
    expect(beta.unauthorized, 'requests to beta without its header').to.equal(0);
  });
});
