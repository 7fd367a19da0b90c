// Host middleware that reads the body before the router: every shape of what it leaves.
import { expect } from 'chai';
import express, { type RequestHandler } from 'express';
import {
  createLogger,
  createNodeListener,
  createRpc,
  defineMethod,
  type CallEvent,
  type Rpc,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';

const CALL = '{"jsonrpc":"2.0","id":7,"method":"double","params":[21]}';
const ANSWER = '{"jsonrpc":"2.0","result":42,"id":7}';
const JSON_CT = { 'content-type': 'application/json' };

function buildRpc(log = memoryLog()): Rpc {
  return createRpc({
    logger: createLogger({ level: 'info', destination: log.stream }),
    methods: [
      defineMethod<[number], number>({ name: 'double', params: { type: 'array' }, handler: ([n]) => n * 2 }),
    ],
  });
}

async function hostWith(first: RequestHandler, rpc = buildRpc()): Promise<Listening> {
  const app = express();
  app.use(first);
  app.use('/rpc', expressRpc(rpc));
  return listen(app);
}

describe('Express host middleware that already read the body', () => {
  const servers: Listening[] = [];
  afterEach(() => Promise.all(servers.splice(0).map((s) => s.close())));
  const host = async (first: RequestHandler, rpc?: Rpc) => {
    const s = await hostWith(first, rpc);
    servers.push(s);
    return s;
  };

  it('parses a Buffer body left by express.raw()', async () => {
    const s = await host(express.raw({ type: 'application/json' }));
    expect((await post(`${s.url}/rpc`, CALL)).text).to.equal(ANSWER);
    const garbage = await post(`${s.url}/rpc`, '{nope');
    expect(JSON.parse(garbage.text).error.code).to.equal(-32700);
  });

  it('parses a string body left by express.text()', async () => {
    const s = await host(express.text({ type: 'application/json' }));
    expect((await post(`${s.url}/rpc/double`, CALL)).text).to.equal(ANSWER);
  });

  it('answers at once, with a clear JSON-RPC error, when the stream was read and no req.body is left', async () => {
    const swallow: RequestHandler = (req, _res, next) => {
      req.on('end', () => next());
      req.resume();
    };
    const s = await host(swallow);
    const r = await post(`${s.url}/rpc`, CALL); // the old code never answered: this timed out
    expect(r.status).to.equal(500);
    const body = JSON.parse(r.text);
    expect(body.error.code).to.equal(-32603);
    expect(body.error.data).to.match(/read by middleware before the router.*mount the router before it/);
  });

  for (const [label, sent, status, code] of [
    ['over its limit', `[${'1,'.repeat(2000)}1]`, 413, -32600],
    ['not JSON', '{"jsonrpc":', 200, -32700],
  ] as const) {
    it(`answers a host parser's refusal (${label}) through the one HTTP handler: request id, CORS, log, count`, async () => {
      const log = memoryLog();
      const rpc = buildRpc(log);
      const events: CallEvent[] = [];
      rpc.onCall((e) => events.push(e));
      const s = await host(express.json({ limit: '1kb' }), rpc);
      const r = await post(`${s.url}/rpc`, sent, {
        ...JSON_CT,
        'x-request-id': 'req-42',
        origin: 'https://a.example',
      });
      expect(r.status).to.equal(status);
      expect(r.headers['x-request-id']).to.equal('req-42');
      expect(r.headers['access-control-allow-origin']).to.equal('*');
      expect(JSON.parse(r.text).error.code).to.equal(code);
      expect(events.map((e) => [e.requestId, e.code])).to.deep.equal([['req-42', code]]);
      expect(log.lines.some((l) => l.msg === 'call' && l.reqId === 'req-42' && l.code === code)).to.equal(
        true,
      );
    });
  }

  it("says in the 413 that the host's parser refused the body, and how to apply the router's limit", async () => {
    const s = await host(express.json({ limit: '1kb' }));
    const r = await post(`${s.url}/rpc`, `[${'1,'.repeat(2000)}1]`);
    expect(JSON.parse(r.text).error.data).to.match(/host's body parser.*mount the router before/);
  });

  it('with express.json() first, an id beyond 2^53 is refused with -32600 naming the fix, never rounded', async () => {
    const s = await host(express.json());
    const r = await post(
      `${s.url}/rpc`,
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"double","params":[1]}',
    );
    const body = JSON.parse(r.text);
    expect(body.error.code).to.equal(-32600);
    expect(body.error.data.message).to.include('mount it before any body parser');
    expect(body.id).to.equal(null);
  });

  it('with the router mounted before the host parser, its own limit applies and big ids are echoed exactly', async () => {
    const app = express();
    app.use('/rpc', expressRpc(buildRpc()));
    app.use(express.json({ limit: '1kb' }));
    const s = await listen(app);
    servers.push(s);
    const big = `{"jsonrpc":"2.0","id":12345678901234567890,"method":"double","params":[${'0,'.repeat(1000)}21]}`;
    expect((await post(`${s.url}/rpc`, big)).text).to.equal(
      '{"jsonrpc":"2.0","result":0,"id":12345678901234567890}',
    );
  });
});

describe('node:http listener, a POST to a path naming no method', () => {
  let server: Listening;
  before(async () => {
    server = await listen(createNodeListener(buildRpc()));
  });
  after(() => server.close());

  it('is JSON-RPC -32601 echoing the request id', async () => {
    const r = await post(`${server.url}/nope`, '{"jsonrpc":"2.0","id":99,"method":"nope"}');
    expect(r.status).to.equal(404);
    expect(r.text).to.equal('{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":99}');
  });
});

describe('Express without a host parser, a body fully received before the router runs', () => {
  let server: Listening;
  before(async () => {
    const app = express();
    // Waits until the whole body has arrived (req.complete) without reading it.
    app.use((req, _res, next) => {
      const check = () => (req.complete ? next() : setTimeout(check, 5));
      check();
    });
    app.use('/rpc', expressRpc(buildRpc()));
    server = await listen(app);
  });
  after(() => server.close());

  it('is read by the router, not taken for a consumed stream', async () => {
    expect((await post(`${server.url}/rpc`, CALL)).text).to.equal(ANSWER);
  });

  it('an empty body is a parse error, not a consumed stream', async () => {
    const r = await post(`${server.url}/rpc`, '');
    expect(r.status).to.equal(200);
    expect(JSON.parse(r.text).error.code).to.equal(-32700);
  });
});
