// The client libraries real users point at a router, calling getRoutes on the root endpoint.
import { Connection } from '@solana/web3.js';
import {
  createDefaultRpcTransport,
  createRpc as createKitRpc,
  createSolanaRpcApi,
  isSolanaError,
  type RpcApi,
} from '@solana/kit';
import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, type Rpc } from '@rollup-router/core';
import { routesPlugin, type RouteEntry } from '@rollup-router/routes';
import { newIdentity } from '@rollup-router/test-support/solana';
import { listen, memoryLog, type Listening } from '@rollup-router/test-support/http';

/** web3.js 1.x's untyped escape hatch for methods it does not know. */
type Web3RawRpc = { _rpcRequest(method: string, args: unknown[]): Promise<unknown> };

type GetRoutesApi = {
  getRoutes(...params: unknown[]): RouteEntry[];
};

describe('getRoutes from @solana/web3.js and @solana/kit', () => {
  let rpc: Rpc;
  let http: Listening;
  const routes: RouteEntry[] = [
    {
      identity: newIdentity(),
      fqdn: 'https://eu-1.er.example.com',
      baseFee: 5000,
      blockTimeMs: 50,
      countryCode: 'DEU',
    },
    {
      identity: newIdentity(),
      fqdn: 'https://us-1.er.example.com',
      baseFee: 0.25,
      blockTimeMs: 400,
      countryCode: 'USA',
    },
  ];

  before(async () => {
    rpc = createRpc({
      plugins: [routesPlugin({ routes })],
      validateResults: true,
      logger: createLogger({ level: 'warn', destination: memoryLog().stream }),
    });
    await rpc.start();
    http = await listen(createNodeListener(rpc));
  });
  after(async () => {
    await http.close();
    await rpc.stop();
  });

  it("web3.js 1.x: connection._rpcRequest('getRoutes', [])", async () => {
    const connection = new Connection(http.url, 'confirmed');
    const raw = connection as unknown as Web3RawRpc;
    const reply = (await raw._rpcRequest('getRoutes', [])) as { result: unknown; error?: unknown };
    expect(reply.result).to.deep.equal(routes);
    expect(reply).to.not.have.property('error');
  });

  // kit's Solana API is a proxy: any method name becomes a call, with kit's own response
  // handling (it throws on an error member, even "error": null, and upcasts numbers).
  const kitRpc = () =>
    createKitRpc({
      api: createSolanaRpcApi() as unknown as RpcApi<GetRoutesApi>,
      transport: createDefaultRpcTransport({ url: http.url }),
    });

  it('@solana/kit 8: a custom getRoutes method through createRpc with the Solana API', async () => {
    const result = await kitRpc().getRoutes().send();
    // kit upcasts every number it does not know to be small to bigint.
    const upcast = routes.map((r) => ({
      ...r,
      baseFee: Number.isInteger(r.baseFee) ? BigInt(r.baseFee) : r.baseFee,
      blockTimeMs: BigInt(r.blockTimeMs),
    }));
    expect(result).to.deep.equal(upcast);
  });

  it('@solana/kit 8: params other than none are refused with -32602, which kit raises', async () => {
    const err = await kitRpc()
      .getRoutes('extra')
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(err)).to.equal(true);
    expect((err as { context: { __code: number } }).context.__code).to.equal(-32602);
  });
});
