import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createLogger, createRpc, defineMethod } from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { listen, post, type Listening } from '@rollup-router/test-support/http';
import { spawnListening, type Spawned } from '@rollup-router/test-support/spawn';

describe('mounted in an existing Express 5 app', () => {
  let server: Listening;
  let hostErrors: unknown[];

  before(async () => {
    hostErrors = [];
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      limits: { maxBodyBytes: 2048 },
      methods: [
        defineMethod<[number], number>({
          name: 'double',
          params: { type: 'array' },
          handler: ([n]) => n * 2,
        }),
        defineMethod<[], never>({
          name: 'broken',
          params: { type: 'array' },
          handler: () => {
            throw new Error('a bug in /srv/app/handler.js');
          },
        }),
      ],
    });
    const app = express();
    app.set('json spaces', 2); // a host setting the router must not change
    app.use(express.json({ limit: '1kb' }));
    app.post('/orders', (req, res) => {
      res.status(201).json({ received: req.body });
    });
    app.use('/rpc', expressRpc(rpc));
    app.get('/after', (_req, res) => {
      res.json({ after: true });
    });
    app.use((err: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
      hostErrors.push(err);
      res.status(err.status ?? 500).json({ hostError: true });
    });
    server = await listen(app);
  });
  after(() => server.close());

  it('answers calls on the mount, using the body the host already parsed', async () => {
    const root = await post(`${server.url}/rpc`, '{"jsonrpc":"2.0","id":1,"method":"double","params":[21]}');
    expect(root.text).to.equal('{"jsonrpc":"2.0","result":42,"id":1}');
    const path = await post(
      `${server.url}/rpc/double`,
      '{"jsonrpc":"2.0","id":2,"method":"double","params":[2]}',
    );
    expect(path.text).to.equal('{"jsonrpc":"2.0","result":4,"id":2}');
  });

  it("leaves the host's routes and settings untouched", async () => {
    const orders = await post(`${server.url}/orders`, '{"a":1}');
    expect(orders.status).to.equal(201);
    expect(orders.text).to.equal('{\n  "received": {\n    "a": 1\n  }\n}');
    const afterRoute = await post(`${server.url}/after`, '', {}, 'GET');
    expect(JSON.parse(afterRoute.text)).to.deep.equal({ after: true });
  });

  it('passes paths that are not its endpoints on to the host', async () => {
    const deeper = await post(`${server.url}/rpc/not/an/endpoint`, '{}');
    expect(deeper.status).to.equal(404);
    expect(deeper.text).to.include('Cannot POST'); // Express's own final handler
  });

  it('answers a POST to a path naming no method as JSON-RPC -32601 with the request id', async () => {
    const r = await post(`${server.url}/rpc/nope`, '{"jsonrpc":"2.0","id":"abc","method":"nope"}');
    expect(r.status).to.equal(404);
    expect(r.headers['content-type']).to.match(/^application\/json/);
    expect(r.headers['x-request-id']).to.be.a('string');
    expect(r.text).to.equal(
      '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"abc"}',
    );
  });

  it("answers malformed JSON on its endpoints itself, never through the host's error handler", async () => {
    hostErrors.length = 0;
    const r = await post(`${server.url}/rpc`, '{"jsonrpc":');
    expect(r.status).to.equal(200);
    expect(r.text).to.equal('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}');
    const big = await post(
      `${server.url}/rpc`,
      `{"jsonrpc":"2.0","id":1,"method":"double","params":["${'x'.repeat(3000)}"]}`,
    );
    expect(big.status).to.equal(413);
    expect(JSON.parse(big.text).error.code).to.equal(-32600);
    expect(hostErrors).to.have.length(0);
  });

  it("still lets the host's error handler see errors on the host's own routes", async () => {
    hostErrors.length = 0;
    const r = await post(`${server.url}/orders`, '{"broken":');
    expect(r.status).to.equal(400);
    expect(hostErrors).to.have.length(1);
  });

  it('a handler bug is -32603 to the caller and never reaches the host', async () => {
    hostErrors.length = 0;
    const r = await post(`${server.url}/rpc`, '{"jsonrpc":"2.0","id":1,"method":"broken","params":[]}');
    expect(r.status).to.equal(200);
    expect(r.text).to.equal('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}');
    expect(hostErrors).to.have.length(0);
  });
});

describe('examples/embed-express.ts', () => {
  let app: Spawned;
  before(async () => {
    app = await spawnListening(['--import', 'tsx', 'examples/embed-express.ts'], { PORT: '0' });
  });
  after(() => app.stop());

  it('serves the custom method beside the host routes, typed and validated by its schema', async () => {
    const ok = await post(
      `${app.url}/rpc`,
      '{"jsonrpc":"2.0","id":1,"method":"getGreeting","params":{"name":"Ada"}}',
    );
    expect(ok.text).to.equal('{"jsonrpc":"2.0","result":"Hello, Ada!","id":1}');
    const bad = await post(
      `${app.url}/rpc/getGreeting`,
      '{"jsonrpc":"2.0","id":1,"method":"getGreeting","params":{}}',
    );
    expect(JSON.parse(bad.text).error).to.deep.equal({
      code: -32602,
      message: 'Invalid params',
      data: { path: '/params/name', rule: 'required', message: "must have required property 'name'" },
    });
    const status = await post(`${app.url}/status`, '', {}, 'GET');
    expect(JSON.parse(status.text)).to.deep.equal({ ok: true });
  });

  it('lists the custom method in rpc.discover', async () => {
    const r = await post(`${app.url}/rpc`, '{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}');
    const names = (JSON.parse(r.text).result.methods as { name: string }[]).map((m) => m.name);
    expect(names).to.include('getGreeting');
  });
});
