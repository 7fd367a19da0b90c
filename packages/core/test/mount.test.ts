import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
import { listen, post, type Listening } from '@rollup-router/test-support/http';

const pingRpc = () =>
  createRpc({
    logger: createLogger({ level: 'silent' }),
    methods: [defineMethod<[], string>({ name: 'ping', handler: () => 'pong' })],
  });

describe('createNodeListener with a mountPath', () => {
  let server: Listening;
  before(async () => {
    const rpc = pingRpc();
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

describe('createNodeListener with headers', () => {
  let server: Listening;
  before(async () => {
    const rpc = pingRpc();
    server = await listen(
      createNodeListener(rpc, {
        // A clash with a header of the reply's own: the reply's wins.
        headers: { 'X-Frame-Options': 'DENY', 'content-type': 'text/html' },
        fallback: (_req, res) => {
          res.writeHead(418);
          res.end('host');
        },
      }),
    );
  });
  after(() => server.close());

  it("puts them on every RPC reply beside the reply's own, which win a clash", async () => {
    const ok = await post(server.url + '/', '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    const refused = await post(server.url + '/', '{}', { 'content-type': 'text/plain' });
    for (const r of [ok, refused]) {
      expect(r.headers['x-frame-options']).to.equal('DENY');
      expect(r.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(r.headers['x-request-id']).to.be.a('string');
    }
    expect(ok.text).to.equal('{"jsonrpc":"2.0","result":"pong","id":1}');
    expect(refused.status).to.equal(415);
  });

  it("leaves the fallback's replies to the fallback", async () => {
    const r = await post(server.url + '/nope/deeper', '{}');
    expect(r.status).to.equal(418);
    expect(r.headers['x-frame-options']).to.equal(undefined);
  });
});
