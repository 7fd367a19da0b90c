// examples/embed-plugins-express.ts runs as a user would run it: the plugins and a host
// method inside an existing Express app, its own routes untouched.
import { expect } from 'chai';
import { spawnListening, type Spawned } from '@rollup-router/test-support/spawn';
import {
  finalized,
  REPO,
  rpc,
  signature,
  standInUpstream,
  type StandIn,
  type Status,
} from './server.harness.js';

describe('examples/embed-plugins-express.ts', function () {
  this.timeout(60_000);
  let upstream: StandIn;
  let app: Spawned;
  const sig = signature();
  const known = new Map<string, Status>([[sig, finalized(99)]]);

  before(async () => {
    upstream = await standInUpstream(known);
    app = await spawnListening(
      ['--import', 'tsx', 'examples/embed-plugins-express.ts'],
      { PORT: '0', SOLANA_RPC_URL: upstream.url },
      REPO,
    );
  });

  after(async () => {
    await app?.stop('SIGKILL');
    await upstream?.close();
  });

  it('keeps the host app its own routes', async () => {
    const res = await fetch(`${app.url}/status`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ ok: true, nodes: 2 });
  });

  it('serves getRoutes and getSignatureStatuses at /rpc on both endpoint styles', async () => {
    const routes = await rpc(`${app.url}/rpc`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    expect((routes.json.result as { countryCode: string }[]).map((r) => r.countryCode)).to.deep.equal([
      'DEU',
      'USA',
    ]);
    const body = { jsonrpc: '2.0', id: 2, method: 'getSignatureStatuses', params: [[sig, signature()]] };
    const root = await rpc(`${app.url}/rpc/`, body);
    expect(root.json).not.to.have.property('error');
    expect((root.json.result as { value: unknown[] }).value).to.deep.equal([known.get(sig), null]);
    const path = await rpc(`${app.url}/rpc/getSignatureStatuses`, body);
    expect(path.json).to.have.property('error', null);
    expect((path.json.result as { value: unknown[] }).value).to.deep.equal([known.get(sig), null]);
  });

  it("serves the host's own method beside them, validated by its schema", async () => {
    const ok = await rpc(`${app.url}/rpc`, {
      jsonrpc: '2.0',
      id: 3,
      method: 'getRoutesInCountry',
      params: { countryCode: 'USA' },
    });
    expect(ok.json.result).to.deep.equal(['https://devnet-us.magicblock.app']);
    const bad = await rpc(`${app.url}/rpc`, {
      jsonrpc: '2.0',
      id: 4,
      method: 'getRoutesInCountry',
      params: { countryCode: 'us' },
    });
    expect((bad.json.error as { code: number }).code).to.equal(-32602);
  });

  it('stops cleanly on SIGTERM', async () => {
    const code = await app.stop('SIGTERM');
    expect(code).to.equal(0);
    expect(app.output()).to.include('stopped');
  });
});
