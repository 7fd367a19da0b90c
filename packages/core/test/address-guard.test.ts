// The address guard: which addresses it refuses, and that a guarded JsonRpcClient call or
// UpstreamSocket never reaches a loopback server (by IP address or by a name resolving to
// one), while an unguarded one does.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import fc from 'fast-check';
import { WebSocketServer } from 'ws';
import { AddressGuard, AddressRefusedError, JsonRpcClient, refusedRange } from '../src/index.js';
import { UpstreamSocket } from '../src/upstream-socket.js';
import { listen, memoryLog, type Listening } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

const ALLOWED_BY = 'test.allowPrivateAddresses';
const guard = new AddressGuard({ allowedBy: ALLOWED_BY });
const LOCALHOST_REFUSED =
  /^localhost resolves to an address that is loopback; test\.allowPrivateAddresses allows it$/;

const octet = fc.integer({ min: 0, max: 255 });
const ipv4In = (first: number[], second?: { min: number; max: number }) =>
  fc
    .tuple(fc.constantFrom(...first), second ? fc.integer(second) : octet, octet, octet)
    .map((o) => o.join('.'));

describe('address guard: the ranges refused', () => {
  it('names the range of each kind of address a registrant could point at', () => {
    const cases: [string, string | undefined][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.3.4', 'loopback'],
      ['::1', 'loopback'],
      ['10.0.0.5', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fd00::1', 'unique-local'],
      ['fc00::1', 'unique-local'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['192.0.2.1', 'reserved'],
      ['198.18.0.1', 'reserved'],
      ['240.0.0.1', 'reserved'],
      ['::ffff:10.0.0.5', 'private'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::7f00:1', 'reserved'],
      ['::127.0.0.1', 'not readable'],
      ['64:ff9b::a00:5', 'rfc6052'],
      ['2002:a00:5::1', '6to4'],
      ['8.8.8.8', undefined],
      ['172.32.0.1', undefined],
      ['100.128.0.1', undefined],
      ['2606:4700:4700::1111', undefined],
      ['::ffff:8.8.8.8', undefined],
    ];
    for (const [address, range] of cases) expect(refusedRange(address), address).to.equal(range);
  });

  it('refuses every address of 10/8, 172.16/12, 192.168/16 (private), 127/8 (loopback), 169.254/16 (link-local)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          ipv4In([10]).map((a) => [a, 'private']),
          ipv4In([172], { min: 16, max: 31 }).map((a) => [a, 'private']),
          ipv4In([192], { min: 168, max: 168 }).map((a) => [a, 'private']),
          ipv4In([127]).map((a) => [a, 'loopback']),
          ipv4In([169], { min: 254, max: 254 }).map((a) => [a, 'link-local']),
          ipv4In([100], { min: 64, max: 127 }).map((a) => [a, 'carrier-grade NAT']),
        ),
        ([address, range]) => {
          expect(refusedRange(address!)).to.equal(range);
        },
      ),
    );
  });

  it('judges an IPv4-mapped IPv6 address as its IPv4 address', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (o) => {
        const v4 = o.join('.');
        expect(refusedRange(`::ffff:${v4}`)).to.equal(refusedRange(v4));
      }),
    );
  });

  it('refuses every unique-local (fc00::/7) and link-local (fe80::/10) IPv6 address', () => {
    const hex = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfc00, max: 0xfdff }),
        fc.array(hex, { minLength: 7, maxLength: 7 }),
        (first, rest) => {
          expect(refusedRange([first.toString(16), ...rest].join(':'))).to.equal('unique-local');
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfe80, max: 0xfebf }),
        fc.array(hex, { minLength: 7, maxLength: 7 }),
        (first, rest) => {
          expect(refusedRange([first.toString(16), ...rest].join(':'))).to.equal('link-local');
        },
      ),
    );
  });

  it('refuses an IP address host (brackets or not) and leaves a name to the lookup', () => {
    expect(guard.refusalOf('10.0.0.5')?.message).to.equal(
      `address 10.0.0.5 is private; ${ALLOWED_BY} allows it`,
    );
    expect(guard.refusalOf('[::1]')?.message).to.equal(`address ::1 is loopback; ${ALLOWED_BY} allows it`);
    expect(guard.refusalOf('8.8.8.8')).to.equal(undefined);
    expect(guard.refusalOf('localhost')).to.equal(undefined);
  });

  it('lookup refuses a name resolving to loopback and passes a public address through', async () => {
    const looked = (host: string, all: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        guard.lookup(host, { all }, (err, address) => resolve({ err, address })),
      );
    const refused = await looked('localhost', false);
    expect(refused.err?.message).to.match(LOCALHOST_REFUSED);
    // The address is on the error for the operator's own use, not in its message.
    expect((refused.err as AddressRefusedError).address).to.be.oneOf(['127.0.0.1', '::1']);
    expect((await looked('8.8.8.8', false)).address).to.equal('8.8.8.8');
    expect((await looked('8.8.8.8', true)).address).to.deep.equal([{ address: '8.8.8.8', family: 4 }]);
  });
});

describe('address guard: connections refused where they are made', () => {
  let server: Listening & { requests: number };
  let client: JsonRpcClient;

  beforeEach(async () => {
    let requests = 0;
    const listening = await listen((_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":1,"result":"ok"}');
    });
    server = {
      ...listening,
      get requests() {
        return requests;
      },
    };
    client = new JsonRpcClient();
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  const call = (url: string, addressGuard?: AddressGuard) =>
    client.call(url, { method: 'getHealth', id: 1, timeoutMs: 5000, addressGuard });

  it('a guarded call to a loopback IP address is unreachable, and the server receives nothing', async () => {
    expect(await call(`http://127.0.0.1:${server.port}`, guard)).to.deep.equal({
      kind: 'unreachable',
      detail: `address 127.0.0.1 is loopback; ${ALLOWED_BY} allows it`,
    });
    expect(server.requests).to.equal(0);
    expect(await call(`http://127.0.0.1:${server.port}`)).to.include({ kind: 'reply' });
    expect(server.requests).to.equal(1);
  });

  it('a guarded call to a name resolving to loopback (localhost) is refused after resolution', async () => {
    const outcome = await call(`http://localhost:${server.port}`, guard);
    expect(outcome.kind).to.equal('unreachable');
    expect((outcome as { detail: string }).detail).to.match(LOCALHOST_REFUSED);
    expect(server.requests).to.equal(0);
    expect(await call(`http://localhost:${server.port}`)).to.include({ kind: 'reply' });
    expect(server.requests).to.equal(1);
  });

  it('the same URL guarded and not are two pools: the unguarded one does not open the guarded one', async () => {
    const url = `http://127.0.0.1:${server.port}`;
    expect(await call(url)).to.include({ kind: 'reply' });
    expect(await call(url, guard)).to.include({ kind: 'unreachable' });
    expect(server.requests).to.equal(1);
  });

  it('a batch through the guard is refused too', async () => {
    const outcome = await client.batch(`http://127.0.0.1:${server.port}`, [{ method: 'getHealth', id: 1 }], {
      timeoutMs: 5000,
      addressGuard: guard,
    });
    expect(outcome).to.deep.equal({
      kind: 'unreachable',
      detail: `address 127.0.0.1 is loopback; ${ALLOWED_BY} allows it`,
    });
    expect(server.requests).to.equal(0);
  });
});

describe('address guard: an upstream websocket', () => {
  let wss: WebSocketServer;
  let port: number;
  let connections: number;
  const sockets: UpstreamSocket[] = [];

  beforeEach(async () => {
    connections = 0;
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    port = (wss.address() as AddressInfo).port;
    wss.on('connection', () => (connections += 1));
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.stop();
    await new Promise((resolve) => wss.close(resolve));
  });

  function socket(url: string, addressGuard?: AddressGuard) {
    const logs = memoryLog();
    const s = new UpstreamSocket(
      'er:test',
      url,
      { acked: () => undefined, notified: () => true },
      { pingIntervalMs: 10_000, reconnectMaxDelayMs: 100, handshakeTimeoutMs: 2000, addressGuard },
      () => logs.log,
    );
    sockets.push(s);
    s.start();
    return { s, logs };
  }

  it('never connects to a loopback IP address through the guard, and says why', async () => {
    const { logs } = socket(`ws://127.0.0.1:${port}`, guard);
    const line = await waitFor(
      () => logs.lines.find((l) => l.msg === 'upstream websocket refused'),
      'the refusal logged',
    );
    expect(line.err).to.equal(`address 127.0.0.1 is loopback; ${ALLOWED_BY} allows it`);
    socket(`ws://127.0.0.1:${port}`);
    await waitFor(() => connections === 1, 'the unguarded socket connected');
    expect(connections).to.equal(1);
  });

  it('never connects to a name resolving to loopback through the guard', async () => {
    const { s, logs } = socket(`ws://localhost:${port}`, guard);
    const line = await waitFor(
      () => logs.lines.find((l) => l.msg === 'upstream websocket failed'),
      'the failure logged',
    );
    expect(line.err).to.match(LOCALHOST_REFUSED);
    // Retried with backoff, refused each time: a name may resolve elsewhere later.
    await waitFor(() => s.connections >= 3, 'retries');
    expect(connections).to.equal(0);
    expect(s.isOpen).to.equal(false);
  });
});
