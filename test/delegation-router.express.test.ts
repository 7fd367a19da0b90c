// The plugin mounted in an Express app, as packages/delegation-router/README.md shows,
// with the real web3.js router SDK pointed at it.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { expect } from 'chai';
import { ConnectionMagicRouter } from '@magicblock-labs/ephemeral-rollups-sdk';
import { createLogger, createRpc, type Rpc } from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { routesPlugin } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { delegationRouterPlugin } from '@rollup-router/delegation-router';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { newIdentity } from '@rollup-router/test-support/solana';

describe('delegation router mounted in Express', () => {
  let chain: DelegationChain;
  let rpc: Rpc;
  let server: Server;
  let url: string;
  const er = { identity: newIdentity(), fqdn: 'https://er.example.com' };

  before(async () => {
    chain = await DelegationChain.start(undefined);
    const routes = routesPlugin({ routes: [{ ...er, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' }] });
    const statuses = signatureStatusesPlugin({});
    const delegation = delegationRouterPlugin({
      baseChain: { url: chain.url, wsUrl: chain.wsUrl },
      identity: { allow: [er.identity] },
      registry: routes.registry,
      onSent: (signature, upstream) => statuses.track(signature, upstream.url),
    });
    rpc = createRpc({ plugins: [routes, statuses, delegation], logger: createLogger({ level: 'silent' }) });
    await rpc.start();
    const app = express();
    app.get('/status', (_req, res) => res.json({ ok: true }));
    app.use('/', expressRpc(rpc));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.close();
    await rpc?.stop();
    await chain?.close();
  });

  it('serves the SDK: getClosestValidator and getDelegationStatus (path-style) of a delegated account', async () => {
    const account = newIdentity();
    await chain.delegate(account, er.identity);
    const connection = new ConnectionMagicRouter(url);
    expect(await connection.getClosestValidator()).to.deep.equal(er);
    expect(await connection.getDelegationStatus(account)).to.deep.include({
      isDelegated: true,
      fqdn: er.fqdn,
    });
    expect(await connection.getDelegationStatus(newIdentity())).to.deep.equal({ isDelegated: false });
  });

  it("leaves the host app's own routes alone", async () => {
    expect(await (await fetch(`${url}/status`)).json()).to.deep.equal({ ok: true });
  });
});
