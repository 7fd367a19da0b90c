// The real plugins, in a service whose embedder never called rpc.start(): they start on the first call.
import { expect } from 'chai';
import { createNodeListener, createRpc } from '@rollup-router/core';
import { routesPlugin, type RouteEntry } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { newIdentity, randomSignature } from '@rollup-router/test-support/solana';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';

describe('routes and statuses plugins without await rpc.start()', () => {
  let server: Listening;
  let stop: () => Promise<void>;
  const route: RouteEntry = {
    identity: newIdentity(),
    fqdn: 'https://eu-1.er.example.com',
    baseFee: 5000,
    blockTimeMs: 50,
    countryCode: 'DEU',
  };
  before(async () => {
    const rpc = createRpc({
      logger: memoryLog().log,
      plugins: [
        routesPlugin({ routes: [route] }),
        signatureStatusesPlugin({ upstreams: [{ url: VALIDATOR }] }),
      ],
    });
    stop = () => rpc.stop();
    server = await listen(createNodeListener(rpc));
  });
  after(async () => {
    await server.close();
    await stop();
  });

  it('getRoutes answers the configured routes, not []', async () => {
    const r = JSON.parse((await post(server.url, '{"jsonrpc":"2.0","id":1,"method":"getRoutes"}')).text);
    expect(r.result).to.deep.equal([route]);
  });

  it('getSignatureStatuses answers, not -32603', async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    const call = { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[randomSignature()]] };
    const r = JSON.parse((await post(server.url, JSON.stringify(call))).text);
    expect(r.error).to.equal(undefined);
    expect(r.result.value).to.deep.equal([null]);
  });
});
