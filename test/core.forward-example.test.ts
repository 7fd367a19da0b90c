// examples/forward-node.ts runs as a user would run it: two JSON-RPC nodes on loopback (an
// EVM node's methods, answered by small servers here), each call sent to the node its
// params name, the node's bytes passed back, its errors unchanged, and the example's own
// codes for a node that is down, a reply past its cap and an unknown chain.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { spawnListening, type Spawned } from '@rollup-router/test-support/spawn';
import { REPO } from './server.harness.js';

/** A node that answers every call with `result` (raw JSON text); an error for eth_getBalance of 0x0, 4 KiB for 0xbig. */
async function node(result: string): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: number;
        method: string;
        params: unknown[];
      };
      calls.push(call.method);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (call.method === 'eth_getBalance' && call.params[0] === '0x0') {
        res.end(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"header not found"},"id":${call.id}}`);
        return;
      }
      // Past the example's 1 KiB cap of eth_getBalance.
      const answer = call.params[0] === '0xbig' ? `"${'f'.repeat(4096)}"` : result;
      res.end(`{"jsonrpc":"2.0","id":${call.id},"result":${answer}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('examples/forward-node.ts', function () {
  this.timeout(60_000);
  let a: Awaited<ReturnType<typeof node>>;
  let b: Awaited<ReturnType<typeof node>>;
  let app: Spawned;

  const call = async (
    method: string,
    params: unknown[],
  ): Promise<{ text: string; json: Record<string, unknown>; upstream: string | null }> => {
    const res = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await res.text();
    const upstream = res.headers.get('x-rollup-router-upstream');
    return { text, json: JSON.parse(text) as Record<string, unknown>, upstream };
  };

  before(async () => {
    // A balance past 2^53: a JSON.parse round trip would change it.
    a = await node('{"wei":123456789012345678901234567890}');
    b = await node('"0x2"');
    app = await spawnListening(
      ['--import', 'tsx', 'examples/forward-node.ts'],
      { PORT: '0', NODE_A_URL: a.url, NODE_B_URL: 'http://127.0.0.1:9' },
      REPO,
    );
  });
  after(async () => {
    await app?.stop('SIGKILL');
    await a?.close();
    await b?.close();
  });

  it("sends each call to the node its params name and passes the node's bytes back", async () => {
    const { text } = await call('eth_getBalance', ['0xabc', 'latest', '0x1']);
    expect(text).to.include('"result":{"wei":123456789012345678901234567890}');
    expect(a.calls).to.deep.equal(['eth_getBalance']);
  });

  it('names the node that answered in x-rollup-router-upstream, its error included; none when no node answered', async () => {
    expect((await call('eth_getBalance', ['0xabc', 'latest', '0x1'])).upstream).to.equal('chain-1');
    expect((await call('eth_getBalance', ['0x0', 'latest', '0x1'])).upstream).to.equal('chain-1');
    expect((await call('eth_blockNumber', ['0x2'])).upstream).to.equal(null);
  });

  it("passes the node's own error back: its code and message", async () => {
    const { json } = await call('eth_getBalance', ['0x0', 'latest', '0x1']);
    // A service with no Solana plugin sends codes as they are (docs/wire-errors.md).
    const error = json.error as { code: number; message: string };
    expect(error.code).to.equal(-32000);
    expect(error.message).to.equal('header not found');
  });

  it("answers with the example's own codes: a node down, a reply past its cap, an unknown chain", async () => {
    const down = await call('eth_blockNumber', ['0x2']);
    expect((down.json.error as { code: number }).code).to.equal(-32090);
    expect((down.json.error as { data: unknown }).data).to.deep.include({
      upstream: 'chain-2',
      kind: 'unreachable',
    });
    const tooLarge = await call('eth_getBalance', ['0xbig', 'latest', '0x1']);
    expect((tooLarge.json.error as { code: number }).code).to.equal(-32091);
    expect((tooLarge.json.error as { data: unknown }).data).to.deep.include({
      upstream: 'chain-1',
      method: 'eth_getBalance',
      limitBytes: 1024,
    });
    const unknown = await call('eth_blockNumber', ['0x9']);
    expect((unknown.json.error as { code: number }).code).to.equal(-32092);
  });
});
