import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
import { listen, post, type Listening } from '@rollup-router/test-support/http';

describe('createNodeListener with a mountPath', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      methods: [defineMethod<[], string>({ name: 'ping', handler: () => 'pong' })],
    });
    server = await listen(
      createNodeListener(rpc, {
        mountPath: '/rpc/',
        fallback: (_req, res) => {
          res.writeHead(418);
          res.end('host');
        },
      }),
    );
  });
  after(() => server.close());

  const call = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

  it('serves the root and path-style endpoints under the mount', async () => {
    for (const path of ['/rpc', '/rpc/', '/rpc/ping']) {
      expect((await post(server.url + path, call)).text, path).to.equal(
        '{"jsonrpc":"2.0","result":"pong","id":1}',
      );
    }
  });

  it('leaves every other path to the fallback, neighbours of the mount included', async () => {
    for (const path of ['/', '/ping', '/rpcx', '/rpcxping', '/rpc/nope']) {
      expect((await post(server.url + path, call)).status, path).to.equal(418);
    }
  });
});
