import { expect } from 'chai';
import http from 'node:http';
import { createLogger, createNodeListener, createRpc, defineMethod, RawJson } from '@rollup-router/core';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';

describe('calls', () => {
  let server: Listening;
  const log = memoryLog();
  let aborted: string | undefined;
  let waiting = false;

  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ destination: log.stream }),
      validateResults: true,
      methods: [
        defineMethod<[], number>({
          name: 'wrongResult',
          result: { type: 'integer', minimum: 0 },
          handler: () => -1,
        }),
        defineMethod<[], number[]>({
          name: 'raw',
          result: { type: 'array', items: { type: 'integer' } },
          handler: () => new RawJson('[1,2,3]', [1, 2, 3]),
        }),
        defineMethod<[], string>({
          name: 'waitsForAbort',
          handler: (_p, ctx) =>
            new Promise((resolve) => {
              waiting = true;
              ctx.signal.addEventListener('abort', () => {
                aborted = String((ctx.signal.reason as Error).message);
                resolve('too late');
              });
            }),
        }),
      ],
    });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('a result that does not match its schema becomes -32603 and is logged with method and path', async () => {
    const r = await post(server.url, '{"jsonrpc":"2.0","id":1,"method":"wrongResult"}', {
      'content-type': 'application/json',
      'x-request-id': 'res-1',
    });
    expect(r.text).to.equal('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}');
    const line = log.lines.find((l) => l.reqId === 'res-1' && l.msg === 'result does not match its schema');
    expect(line).to.include({ method: 'wrongResult', path: '/result' });
  });

  it('a pre-serialized result is sent as is', async () => {
    const r = await post(server.url, '{"jsonrpc":"2.0","id":1,"method":"raw"}');
    expect(r.text).to.equal('{"jsonrpc":"2.0","result":[1,2,3],"id":1}');
  });

  it("the call's signal fires when the client disconnects", async () => {
    aborted = undefined;
    waiting = false;
    const req = http.request(`${server.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end('{"jsonrpc":"2.0","id":1,"method":"waitsForAbort"}');
    await waitFor(() => waiting, 'the handler is waiting');
    expect(aborted, 'not aborted while the client is still there').to.equal(undefined);
    req.destroy();
    await waitFor(() => aborted !== undefined, 'signal aborted');
    expect(aborted).to.equal('client disconnected');
  });
});
