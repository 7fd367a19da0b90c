// One test per row of the wire contract's envelope, HTTP and error tables
// (docs/wire-contract.md), on both endpoint styles and through both adapters.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import express from 'express';
import {
  createLogger,
  createNodeListener,
  createRpc,
  defineMethod,
  RpcError,
  type Rpc,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';

const JSON_CT = { 'content-type': 'application/json' };

function buildRpc(log = memoryLog()): Rpc {
  return createRpc({
    logger: createLogger({ level: 'info', destination: log.stream }),
    limits: { maxBatchLength: 5, maxBodyBytes: 4096, callDeadlineMs: 200 },
    methods: [
      // Shaped like getSignatureStatuses: the specification shows "error": null on its success.
      defineMethod<[string[]], { value: string[] }>({
        name: 'withErrorNull',
        params: {
          type: 'array',
          prefixItems: [{ type: 'array', items: { type: 'string' } }],
          minItems: 1,
          maxItems: 1,
        },
        errorNullOnPathStyle: true,
        handler: ([xs]) => ({ value: xs }),
      }),
      // Shaped like getRoutes: absent or [] params, no error key on success.
      defineMethod<[], number[]>({
        name: 'noErrorKey',
        params: { type: 'array', maxItems: 0 },
        handler: () => [1, 2],
      }),
      defineMethod<unknown, never>({
        name: 'broken',
        handler: () => {
          // A real file path of this checkout: the reply must not carry it.
          throw new Error(`secret detail at ${fileURLToPath(import.meta.url)}:12`);
        },
      }),
      defineMethod<unknown, never>({
        name: 'refuses',
        handler: () => {
          throw new RpcError(-32099, 'custom refusal', { why: 'test' });
        },
      }),
      defineMethod<unknown, string>({ name: 'slow', handler: () => new Promise(() => undefined) }),
    ],
  });
}

const adapters: { name: string; start: (rpc: Rpc) => Promise<Listening> }[] = [
  { name: 'node:http', start: (rpc) => listen(createNodeListener(rpc)) },
  {
    name: 'Express',
    start: (rpc) => {
      const app = express();
      app.use(expressRpc(rpc));
      return listen(app);
    },
  },
];

for (const adapter of adapters) {
  describe(`wire contract through the ${adapter.name} adapter`, () => {
    let server: Listening;
    let log: ReturnType<typeof memoryLog>;
    before(async () => {
      log = memoryLog();
      server = await adapter.start(buildRpc(log));
    });
    after(() => server.close());

    // Each row runs on the root and on the path-style endpoint of the method it calls.
    const styles = [
      { style: 'root', path: (_m: string) => '/' },
      { style: 'path-style', path: (m: string) => `/${m}` },
    ];

    describe('endpoints table', () => {
      it('path-style success of a method whose specification shows it carries "error": null', async () => {
        const r = await post(
          `${server.url}/withErrorNull`,
          '{"jsonrpc":"2.0","id":1,"method":"withErrorNull","params":[["a"]]}',
        );
        expect(r.text).to.equal('{"jsonrpc":"2.0","result":{"value":["a"]},"error":null,"id":1}');
      });
      it('path-style success of a method without it has no error key', async () => {
        const r = await post(`${server.url}/noErrorKey`, '{"jsonrpc":"2.0","id":1,"method":"noErrorKey"}');
        expect(r.text).to.equal('{"jsonrpc":"2.0","result":[1,2],"id":1}');
      });
      it('root success is strict JSON-RPC: no error key at all', async () => {
        const r = await post(
          `${server.url}/`,
          '{"jsonrpc":"2.0","id":1,"method":"withErrorNull","params":[["a"]]}',
        );
        expect(r.text).to.equal('{"jsonrpc":"2.0","result":{"value":["a"]},"id":1}');
      });
      it('path-style: a body method other than the path is -32600 naming both', async () => {
        const r = await post(
          `${server.url}/noErrorKey`,
          '{"jsonrpc":"2.0","id":1,"method":"withErrorNull","params":[["a"]]}',
        );
        const body = JSON.parse(r.text);
        expect(body.error.code).to.equal(-32600);
        expect(body.error.data).to.include('withErrorNull').and.include('noErrorKey');
        expect(body.id).to.equal(1);
      });
      it('path-style: the body is a whole request, whose method the path does not stand in for', async () => {
        const r = await post(`${server.url}/noErrorKey`, '{"jsonrpc":"2.0","id":1}');
        expect(JSON.parse(r.text).error).to.deep.include({
          code: -32600,
          data: { path: '/method', rule: 'required', message: "must have required property 'method'" },
        });
      });
      it("path-style: a batch of the path's method is answered as on the root", async () => {
        const r = await post(
          `${server.url}/noErrorKey`,
          '[{"jsonrpc":"2.0","id":1,"method":"noErrorKey"},{"jsonrpc":"2.0","id":"b","method":"noErrorKey"}]',
        );
        expect(r.text).to.equal(
          '[{"jsonrpc":"2.0","result":[1,2],"id":1},{"jsonrpc":"2.0","result":[1,2],"id":"b"}]',
        );
      });
      it('a path that names no method is not an RPC endpoint', async () => {
        const r = await post(
          `${server.url}/noSuchMethod`,
          '{"jsonrpc":"2.0","id":1,"method":"noSuchMethod"}',
        );
        expect(r.status).to.equal(404);
      });
    });

    for (const { style, path } of styles) {
      describe(`envelope rules (${style})`, () => {
        const call = (body: string, method = 'noErrorKey') => post(server.url + path(method), body);

        for (const [label, bodyText] of [
          ['jsonrpc missing', '{"id":1,"method":"noErrorKey"}'],
          ['jsonrpc "1.0"', '{"jsonrpc":"1.0","id":1,"method":"noErrorKey"}'],
          ['jsonrpc the number 2.0', '{"jsonrpc":2.0,"id":1,"method":"noErrorKey"}'],
        ] as const) {
          it(`${label}: -32600 with the failing path and rule`, async () => {
            const body = JSON.parse((await call(bodyText)).text);
            expect(body.error.code).to.equal(-32600);
            expect(body.error.data.path).to.equal('/jsonrpc');
            expect(body.error.data.rule).to.be.oneOf(['required', 'const']);
            expect(body.id).to.equal(1);
          });
        }

        for (const id of [
          '7',
          '"abc-123"',
          '""',
          'null',
          '-1',
          '9007199254740993',
          '-123456789012345678901234567890',
        ]) {
          it(`id ${id} is echoed unchanged with its type`, async () => {
            const r = await call(`{"jsonrpc":"2.0","id":${id},"method":"noErrorKey"}`);
            expect(r.text).to.equal(`{"jsonrpc":"2.0","result":[1,2],"id":${id}}`);
          });
        }

        for (const id of ['1.5', '{}', '[]', '1e400', 'true']) {
          it(`id ${id} is -32600 with id null`, async () => {
            const body = JSON.parse((await call(`{"jsonrpc":"2.0","id":${id},"method":"noErrorKey"}`)).text);
            expect(body.error.code).to.equal(-32600);
            expect(body.id).to.equal(null);
          });
        }

        it('a request without id is a notification: executed, no response object (204)', async () => {
          const before = log.lines.filter((l) => l.msg === 'call').length;
          const r = await call('{"jsonrpc":"2.0","method":"noErrorKey"}');
          expect(r.status).to.equal(204);
          expect(r.text).to.equal('');
          expect(log.lines.filter((l) => l.msg === 'call').length).to.equal(before + 1);
        });

        it('a batch is answered in request order, notifications left out', async () => {
          const r = await call(
            '[{"jsonrpc":"2.0","id":"b","method":"noErrorKey"},{"jsonrpc":"2.0","method":"noErrorKey"},' +
              '{"jsonrpc":"2.0","id":"a","method":"noErrorKey","params":[1]},{"jsonrpc":"2.0","id":3,"method":"noErrorKey"}]',
          );
          const body = JSON.parse(r.text) as { id: unknown }[];
          expect(body.map((x) => x.id)).to.deep.equal(['b', 'a', 3]);
        });

        it('an empty batch is one -32600 error object, not an array', async () => {
          const r = await call('[]');
          expect(r.text).to.match(/^\{"jsonrpc":"2.0","error":\{"code":-32600,"message":"Invalid request"/);
          expect(JSON.parse(r.text).id).to.equal(null);
        });

        it('a batch of only notifications gets 204 and no body', async () => {
          const r = await call(
            '[{"jsonrpc":"2.0","method":"noErrorKey"},{"jsonrpc":"2.0","method":"noErrorKey"}]',
          );
          expect(r.status).to.equal(204);
          expect(r.text).to.equal('');
        });

        it('a batch over the configured length is one -32600', async () => {
          const one = '{"jsonrpc":"2.0","id":1,"method":"noErrorKey"}';
          const r = await call(`[${Array(6).fill(one).join(',')}]`);
          const body = JSON.parse(r.text);
          expect(body).to.not.be.an('array');
          expect(body.error.code).to.equal(-32600);
          expect(body.error.data).to.include('limit of 5');
        });

        it('unknown top-level members are -32600 naming the member', async () => {
          const body = JSON.parse(
            (await call('{"jsonrpc":"2.0","id":1,"method":"noErrorKey","extra":1}')).text,
          );
          expect(body.error.code).to.equal(-32600);
          expect(body.error.data).to.include({ path: '/extra', rule: 'additionalProperties' });
        });

        it('batch items that are not objects each get -32600 with id null', async () => {
          const body = JSON.parse((await call('[1,2]')).text) as { id: unknown; error: { code: number } }[];
          expect(body.map((b) => [b.id, b.error.code])).to.deep.equal([
            [null, -32600],
            [null, -32600],
          ]);
        });
      });

      describe(`HTTP rules (${style})`, () => {
        const url = () => server.url + path('noErrorKey');
        const ok = '{"jsonrpc":"2.0","id":1,"method":"noErrorKey"}';

        it('every JSON-RPC reply, errors included, is HTTP 200 application/json', async () => {
          for (const body of [ok, '{"jsonrpc":"2.0","id":1,"method":"nope"}', '{bad']) {
            const r = await post(url(), body);
            expect(r.status).to.equal(200);
            expect(r.headers['content-type']).to.match(/^application\/json/);
          }
        });

        for (const ct of [
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'Application/Json;charset=UTF-8',
        ]) {
          it(`content type "${ct}" is accepted`, async () => {
            const r = await post(url(), ok, { 'content-type': ct });
            expect(r.text).to.equal('{"jsonrpc":"2.0","result":[1,2],"id":1}');
          });
        }

        for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
          it(`content type "${ct}" is HTTP 415 with -32700 and id null`, async () => {
            const r = await post(url(), ok, { 'content-type': ct });
            expect(r.status).to.equal(415);
            const body = JSON.parse(r.text);
            expect([body.error.code, body.id]).to.deep.equal([-32700, null]);
          });
        }

        for (const method of ['GET', 'PUT', 'DELETE']) {
          it(`${method} is HTTP 405 with an Allow header`, async () => {
            const r = await post(url(), ok, JSON_CT, method);
            expect(r.status).to.equal(405);
            expect(r.headers['allow']).to.equal('POST, OPTIONS');
            expect(JSON.parse(r.text).error.code).to.equal(-32600);
          });
        }

        it('OPTIONS answers the CORS pre-flight', async () => {
          const r = await post(
            url(),
            '',
            {
              origin: 'https://app.example',
              'access-control-request-method': 'POST',
              'access-control-request-headers': 'content-type, solana-client',
            },
            'OPTIONS',
          );
          expect(r.status).to.equal(204);
          expect(r.headers['access-control-allow-origin']).to.equal('*');
          expect(r.headers['access-control-allow-methods']).to.include('POST');
          expect(r.headers['access-control-allow-headers']).to.include('solana-client');
        });

        it('a cross-origin POST gets CORS headers', async () => {
          const r = await post(url(), ok, { ...JSON_CT, origin: 'https://app.example' });
          expect(r.headers['access-control-allow-origin']).to.equal('*');
        });

        it('a body over the size limit is HTTP 413 with -32600 and id null', async () => {
          const r = await post(
            url(),
            `{"jsonrpc":"2.0","id":1,"method":"noErrorKey","params":["${'x'.repeat(5000)}"]}`,
          );
          expect(r.status).to.equal(413);
          const body = JSON.parse(r.text);
          expect([body.error.code, body.id]).to.deep.equal([-32600, null]);
        });

        it('invalid JSON is HTTP 200 with exactly the Parse error body', async () => {
          for (const bad of ['{"jsonrpc":"2.0","id":1,"method":', `${ok}xyz`, '']) {
            const r = await post(url(), bad);
            expect(r.status).to.equal(200);
            expect(r.text).to.equal(
              '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}',
            );
          }
        });

        it('the request id is taken from x-request-id, else generated, and returned', async () => {
          const mine = await post(url(), ok, { ...JSON_CT, 'x-request-id': 'trace-42' });
          expect(mine.headers['x-request-id']).to.equal('trace-42');
          const generated = await post(url(), ok);
          expect(generated.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
          const forged = await post(url(), ok, { ...JSON_CT, 'x-request-id': 'a b<script>' });
          expect(forged.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        });
      });
    }

    describe('error codes table', () => {
      it('-32601 Method not found (root)', async () => {
        const r = await post(`${server.url}/`, '{"jsonrpc":"2.0","id":1,"method":"noSuchMethod"}');
        expect(r.text).to.equal(
          '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}',
        );
      });
      for (const [style, p] of [
        ['root', '/'],
        ['path-style', '/withErrorNull'],
      ] as const) {
        it(`-32602 Invalid params with the failing path and rule (${style})`, async () => {
          const r = await post(
            server.url + p,
            '{"jsonrpc":"2.0","id":1,"method":"withErrorNull","params":[["a",5]]}',
          );
          expect(JSON.parse(r.text).error).to.deep.equal({
            code: -32602,
            message: 'Invalid params',
            data: { path: '/params/0/1', rule: 'type', message: 'must be string' },
          });
        });
        it(`-32602 for params a method does not take (${style})`, async () => {
          const path = p === '/' ? '/' : '/noErrorKey';
          for (const params of ['["x"]', '{}', 'null', '"s"']) {
            const r = await post(
              server.url + path,
              `{"jsonrpc":"2.0","id":1,"method":"noErrorKey","params":${params}}`,
            );
            expect(JSON.parse(r.text).error.code, params).to.equal(-32602);
          }
        });
      }
      it('-32603 for a bug: no stack, no internal message; the detail is logged with the request id', async () => {
        const r = await post(`${server.url}/`, '{"jsonrpc":"2.0","id":1,"method":"broken"}', {
          ...JSON_CT,
          'x-request-id': 'bug-1',
        });
        expect(r.text).to.equal(
          '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}',
        );
        const logged = log.lines.find((l) => l.reqId === 'bug-1' && l.msg === 'handler failed');
        expect(logged, 'error line').to.not.equal(undefined);
        expect(JSON.stringify(logged)).to.include('secret detail').and.include('stack');
      });
      it('an RpcError thrown on purpose reaches the caller with its code, message and data as they are', async () => {
        const r = await post(`${server.url}/`, '{"jsonrpc":"2.0","id":1,"method":"refuses"}');
        expect(JSON.parse(r.text).error).to.deep.equal({
          code: -32099,
          message: 'custom refusal',
          data: { why: 'test' },
        });
      });
      it('-32052 when a call passes its deadline', async () => {
        const r = await post(`${server.url}/`, '{"jsonrpc":"2.0","id":1,"method":"slow"}');
        expect(JSON.parse(r.text).error).to.deep.include({
          code: -32052,
          message: 'Deadline exceeded',
          data: { deadlineMs: 200 },
        });
      });
    });

    describe('logging', () => {
      it('writes one line per call with request id, method, duration and outcome code', async () => {
        await post(
          `${server.url}/`,
          '[{"jsonrpc":"2.0","id":1,"method":"noErrorKey"},{"jsonrpc":"2.0","id":2,"method":"nope"}]',
          { ...JSON_CT, 'x-request-id': 'batch-7' },
        );
        const lines = log.lines.filter((l) => l.reqId === 'batch-7' && l.msg === 'call');
        expect(lines.map((l) => [l.method, l.code]).sort()).to.deep.equal([
          ['noErrorKey', 0],
          ['nope', -32601],
        ]);
        for (const l of lines) expect(l.ms).to.be.a('number');
      });
    });
  });
}
