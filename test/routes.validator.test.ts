// The real ephemeral validator (peer B) as a probed node. The shared peers stay up for
// everyone else: "the node stops" is a TCP proxy in front of B that this test closes.
import { expect } from 'chai';
import { pino } from 'pino';
import { RouteRegistry, type RouteEntry } from '@rollup-router/routes';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { tcpProxy, type TcpProxy } from '@rollup-router/test-support/tcp-proxy';

const VALIDATOR_B = { host: '127.0.0.1', port: 18899 };
const B_URL = `http://${VALIDATOR_B.host}:${VALIDATOR_B.port}`;

async function rpcCall(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
    signal: AbortSignal.timeout(2000),
  });
  return ((await res.json()) as { result: unknown }).result;
}

describe('routes: the real ephemeral validator as a node', function () {
  let identity: string;
  let registry: RouteRegistry | undefined;
  let proxy: TcpProxy | undefined;
  const log = pino({ level: 'silent' });

  before(async function () {
    try {
      identity = ((await rpcCall(B_URL, 'getIdentity')) as { identity: string }).identity;
    } catch (err) {
      console.log(`      (validator B at ${B_URL} is not reachable: ${(err as Error).message})`);
      this.skip();
    }
  });
  afterEach(async () => {
    await registry?.stop();
    registry = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  const entryAt = (fqdn: string): RouteEntry => ({
    identity,
    fqdn,
    baseFee: 5000,
    blockTimeMs: 50,
    countryCode: 'DEU',
  });

  it('is listed while it runs, with its probe latency recorded', async () => {
    const entry = entryAt(B_URL);
    registry = new RouteRegistry({
      routes: [entry],
      allowInsecure: true,
      health: { intervalMs: 200, timeoutMs: 2000 },
    });
    await registry.start({ log });
    expect(registry.available()).to.deep.equal([entry]);
    expect(registry.latencyMs(identity)).to.be.a('number').and.greaterThan(0);
  });

  it('is dropped once it stops answering (the proxy in front of it closes)', async () => {
    proxy = await tcpProxy(VALIDATOR_B);
    const entry = entryAt(`http://127.0.0.1:${proxy.port}`);
    registry = new RouteRegistry({
      routes: [entry],
      allowInsecure: true,
      health: { intervalMs: 20, timeoutMs: 2000, unhealthyAfter: 2 },
    });
    await registry.start({ log });
    expect(registry.available()).to.deep.equal([entry]);
    await proxy.close();
    await waitFor(() => registry!.available().length === 0, 'the node to be dropped');
    const [status] = registry.nodes();
    expect(status!.health).to.equal('down');
    expect(status!.lastError).to.match(/^unreachable: /);
  });
});
