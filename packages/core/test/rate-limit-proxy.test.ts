import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, defineMethod, type Rpc } from '@rollup-router/core';
import { listen, post, type Listening } from '@rollup-router/test-support/http';

const ping = defineMethod<[], string>({ name: 'ping', handler: () => 'pong' });
const CALL = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const JSON_CT = { 'content-type': 'application/json' };

function limitedRpc(trustProxy: boolean | number | string[], points = 2): Rpc {
  return createRpc({
    logger: createLogger({ level: 'silent' }),
    rateLimit: { points, durationSeconds: 60, trustProxy },
    methods: [ping],
  });
}

/** Statuses of `count` calls, each with its own X-Forwarded-For built by `xff(i)`. */
async function statuses(url: string, count: number, xff: (i: number) => string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push((await post(url, CALL, { ...JSON_CT, 'x-forwarded-for': xff(i) })).status);
  }
  return out;
}

describe('rate limit behind a proxy', () => {
  const servers: Listening[] = [];
  const serve = async (rpc: Rpc) => {
    const s = await listen(createNodeListener(rpc));
    servers.push(s);
    return s;
  };
  afterEach(() => Promise.all(servers.splice(0).map((s) => s.close())));

  // The test client is on loopback, so loopback plays the trusted proxy.
  it('keys a trusted proxy list on the rightmost untrusted address: a rotated leftmost entry buys nothing', async () => {
    const s = await serve(limitedRpc(['loopback']));
    const got = await statuses(s.url, 5, (i) => `10.9.9.${i}, 203.0.113.7`);
    expect(got).to.deep.equal([200, 200, 429, 429, 429]);
  });

  it('a hop count trusts that many hops nearest the service', async () => {
    const s = await serve(limitedRpc(1));
    // One trusted hop (the loopback peer): the client is the last X-Forwarded-For entry.
    expect(await statuses(s.url, 3, (i) => `10.0.0.${i}, 198.51.100.1`)).to.deep.equal([200, 200, 429]);
    // Another client behind the same proxy has its own budget.
    expect(await statuses(s.url, 1, () => '198.51.100.2')).to.deep.equal([200]);
  });

  it('presets and CIDR ranges trust a chain of proxies', async () => {
    const s = await serve(limitedRpc(['loopback', '10.0.0.0/8']));
    // loopback -> 10.1.2.3 (trusted) -> 192.0.2.9 (the client); the leftmost entry is the client's own.
    const got = await statuses(s.url, 3, (i) => `172.31.0.${i}, 192.0.2.9, 10.1.2.3`);
    expect(got).to.deep.equal([200, 200, 429]);
  });

  it('true means what it means in Express: every hop is trusted, the leftmost address is the client', async () => {
    const s = await serve(limitedRpc(true));
    expect(await statuses(s.url, 3, (i) => `192.0.2.${i}, 10.0.0.1`)).to.deep.equal([200, 200, 200]);
  });

  it('false ignores X-Forwarded-For and keys on the socket peer', async () => {
    const s = await serve(limitedRpc(false));
    expect(await statuses(s.url, 3, (i) => `192.0.2.${i}`)).to.deep.equal([200, 200, 429]);
  });

  it('refuses a trustProxy entry that is no address, range or preset when the service is built', () => {
    expect(() => limitedRpc(['not-an-address'])).to.throw(/trustProxy.*not-an-address/);
    expect(() => limitedRpc(-1)).to.throw(/\/rateLimit/);
  });
});

describe('rate limit charges every request', () => {
  let server: Listening;
  beforeEach(async () => {
    server = await listen(createNodeListener(limitedRpc(false)));
  });
  afterEach(() => server.close());

  it('charges bodies that do not parse: garbage past the budget gets 429, not a free parse error', async () => {
    const got: number[] = [];
    for (let i = 0; i < 5; i++) got.push((await post(server.url, '{garbage')).status);
    expect(got).to.deep.equal([200, 200, 429, 429, 429]);
    expect((await post(server.url, CALL)).status).to.equal(429);
  });

  it('charges a body over the size limit too', async () => {
    const huge = `[${'1,'.repeat(600_000)}1]`;
    const got: number[] = [];
    for (let i = 0; i < 3; i++) got.push((await post(server.url, huge)).status);
    expect(got).to.deep.equal([413, 413, 429]);
  });
});
