import { expect } from 'chai';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createLogger, createNodeListener, createRpc, defineMethod, definePlugin } from '@rollup-router/core';
import { listen, post, type Listening } from '@rollup-router/test-support/http';

const ping = defineMethod<[], string>({ name: 'ping', handler: () => 'pong' });
const CALL = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const JSON_CT = { 'content-type': 'application/json' };

describe('API keys', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      apiKeys: ['key-one-123', 'key-two-456'],
      methods: [ping],
    });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('accepts a right key as a Bearer token or as ?api-key=', async () => {
    const bearer = await post(server.url, CALL, { ...JSON_CT, authorization: 'Bearer key-two-456' });
    expect(bearer.text).to.equal('{"jsonrpc":"2.0","result":"pong","id":1}');
    const query = await post(`${server.url}/?api-key=key-one-123`, CALL);
    expect(query.text).to.equal('{"jsonrpc":"2.0","result":"pong","id":1}');
  });

  it("accepts ?api-key=KEY/<method>, the URL MagicBlock's web3.js SDK builds from one with ?api-key=KEY", async () => {
    const r = await post(`${server.url}/?api-key=key-one-123/getDelegationStatus`, CALL);
    expect(r.text).to.equal('{"jsonrpc":"2.0","result":"pong","id":1}');
  });

  for (const [label, url, headers] of [
    ['a wrong key', '/', { ...JSON_CT, authorization: 'Bearer key-one-1234' }],
    ['a wrong query key', '/?api-key=nope', JSON_CT],
    ['a wrong query key before a method path', '/?api-key=nope/getDelegationStatus', JSON_CT],
    ['a right key after a slash', '/?api-key=x/key-one-123', JSON_CT],
    ['no key', '/', JSON_CT],
  ] as const) {
    it(`refuses ${label} with HTTP 401 and -32050`, async () => {
      const r = await post(server.url + url, CALL, headers);
      expect(r.status).to.equal(401);
      expect(r.headers['www-authenticate']).to.equal('Bearer');
      expect(r.text).to.equal('{"jsonrpc":"2.0","error":{"code":-32050,"message":"Unauthorized"},"id":null}');
    });
  }
});

describe('rate limit', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      rateLimit: { points: 3, durationSeconds: 60 },
      methods: [ping],
    });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('answers over-budget clients with 429, Retry-After and -32051; a batch costs one point per call', async () => {
    const first = await post(server.url, `[${CALL},${CALL}]`);
    expect(first.status).to.equal(200);
    expect(JSON.parse(first.text)).to.have.length(2);
    expect((await post(server.url, CALL)).status).to.equal(200);
    const limited = await post(server.url, CALL);
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
    expect(JSON.parse(limited.text).error).to.deep.include({ code: -32051, message: 'Too many requests' });
  });
});

describe('rate limit shared by several instances', () => {
  const servers: Listening[] = [];
  before(async () => {
    // One limiter behind two instances, as RateLimiterRedis would be behind two processes.
    const rateLimiter = new RateLimiterMemory({ points: 2, duration: 60 });
    for (let i = 0; i < 2; i++) {
      const rpc = createRpc({ logger: createLogger({ level: 'silent' }), rateLimiter, methods: [ping] });
      servers.push(await listen(createNodeListener(rpc)));
    }
  });
  after(() => Promise.all(servers.map((s) => s.close())));

  it('charges calls to either instance against one budget', async () => {
    expect((await post(servers[0]!.url, CALL)).status).to.equal(200);
    expect((await post(servers[1]!.url, CALL)).status).to.equal(200);
    expect((await post(servers[0]!.url, CALL)).status).to.equal(429);
    expect((await post(servers[1]!.url, CALL)).status).to.equal(429);
  });
});

describe('CORS with a list of origins', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      cors: ['https://app.example'],
      methods: [ping],
    });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('echoes an allowed origin and says nothing to others', async () => {
    const allowed = await post(server.url, CALL, { ...JSON_CT, origin: 'https://app.example' });
    expect(allowed.headers['access-control-allow-origin']).to.equal('https://app.example');
    expect(allowed.headers['vary']).to.equal('Origin');
    const other = await post(server.url, CALL, { ...JSON_CT, origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).to.equal(undefined);
  });
});

describe('CORS pre-flight: the headers allowed when the browser lists none', () => {
  const preflight = async (rpc: ReturnType<typeof createRpc>): Promise<string | undefined> => {
    const server = await listen(createNodeListener(rpc));
    try {
      const r = await post(
        server.url,
        '',
        { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        'OPTIONS',
      );
      expect(r.status).to.equal(204);
      return r.headers['access-control-allow-headers'] as string | undefined;
    } finally {
      await server.close();
    }
  };

  it("are the core's own, with no domain's header, when no plugin adds one", async () => {
    const rpc = createRpc({ logger: createLogger({ level: 'silent' }), methods: [ping] });
    expect(await preflight(rpc)).to.equal('content-type, authorization, x-request-id');
  });

  it("add the headers plugins list in allowHeaders, once each (the Solana plugins' solana-client)", async () => {
    const a = definePlugin({ name: 'a', allowHeaders: ['Solana-Client'], methods: [] });
    const b = definePlugin({ name: 'b', allowHeaders: ['solana-client', 'x-app-version'], methods: [] });
    const rpc = createRpc({ logger: createLogger({ level: 'silent' }), plugins: [a, b] });
    expect(await preflight(rpc)).to.equal(
      'content-type, authorization, x-request-id, solana-client, x-app-version',
    );
  });
});
