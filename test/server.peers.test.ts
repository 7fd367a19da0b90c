// The server pointed at the real peers (PEERS_DIR, by default ../shared/peers): validator A as the upstream
// of getSignatureStatuses, validator B as a health-probed node of getRoutes.
import { join } from 'node:path';
import { expect } from 'chai';
import { reachable } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { pubkey, rpc, serveWith, signature, tempDir, type ServerProcess } from './server.harness.js';

const A = 'http://127.0.0.1:17799';
const B = 'http://127.0.0.1:18899';

async function call(
  url: string,
  method: string,
  params?: unknown,
): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
    signal: AbortSignal.timeout(3000),
  });
  return (await res.json()) as { result?: unknown; error?: unknown };
}

describe('rollup-router serve: against the real validators', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  let bIdentity: string;

  before(async function () {
    if (!(await reachable(A, 3000)) || !(await reachable(B, 3000))) {
      this.skip(); // not running here: the peers folder's start-validator.sh starts them
    }
    bIdentity = ((await call(B, 'getIdentity')).result as { identity: string }).identity;
    tmp = tempDir();
    server = await serveWith(tmp.dir, {
      routes: {
        routes: [{ identity: bIdentity, fqdn: B, baseFee: 5000, blockTimeMs: 50, countryCode: 'DEU' }],
        allowInsecure: true,
        health: { intervalMs: 500 },
      },
      statuses: { upstreams: [{ url: A }], store: { path: join(tmp.dir, 'store.sqlite') } },
    });
  });

  after(async () => {
    await server?.kill();
    tmp?.remove();
  });

  it('getRoutes lists validator B once its health probe answers', async () => {
    await waitFor(async () => {
      const r = await rpc(`${server!.base}/getRoutes`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
      return (r.json.result as unknown[]).length === 1;
    }, 'B listed');
    const r = await rpc(`${server!.base}/`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    expect(r.json.result).to.deep.equal([
      { identity: bIdentity, fqdn: B, baseFee: 5000, blockTimeMs: 50, countryCode: 'DEU' },
    ]);
  });

  it('getSignatureStatuses answers what validator A answers, for a real transaction and an unknown one', async () => {
    const airdrop = await call(A, 'requestAirdrop', [pubkey(), 1_000_000]);
    const sig = airdrop.result as string;
    expect(sig, JSON.stringify(airdrop)).to.be.a('string');
    const list = [sig, signature(), sig];
    // Wait until A itself knows the transaction as finalized.
    await waitFor(async () => {
      const direct = (await call(A, 'getSignatureStatuses', [[sig]])).result as {
        value: ({ confirmationStatus: string } | null)[];
      };
      return direct.value[0]?.confirmationStatus === 'finalized';
    }, 'the airdrop is finalized on A');
    const direct = (await call(A, 'getSignatureStatuses', [list])).result as { value: unknown[] };
    for (const url of [`${server!.base}/`, `${server!.base}/getSignatureStatuses`]) {
      const ours = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [list] });
      expect((ours.json.result as { value: unknown[] }).value).to.deep.equal(direct.value);
    }
  });

  it('is ready: store open, B loaded, A answering', async () => {
    await waitFor(async () => (await fetch(`${server!.base}/ready`)).status === 200, 'ready');
  });
});
