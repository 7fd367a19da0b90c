// 100 clients asking at once over HTTP for a signature nobody has seen cost the upstream one request.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, type Rpc } from '@rollup-router/core';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { randomSignature } from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

describe('getSignatureStatuses over HTTP: request coalescing', () => {
  let upstream: SolanaStandIn;
  let rpc: Rpc;
  let server: http.Server;
  let url: string;
  let bodiesRead = 0;

  before(async () => {
    upstream = await SolanaStandIn.start(321);
    rpc = createRpc({
      // Generous timeouts: the upstream holds its answer until all 100 calls are in, however long that takes here.
      plugins: [
        signatureStatusesPlugin({
          upstreams: [{ url: upstream.url }],
          upstreamTimeoutMs: 9000,
          deadlineMs: 9500,
        }),
      ],
      logger: createLogger({ level: 'silent' }),
    });
    await rpc.start();
    const listener = createNodeListener(rpc);
    server = http.createServer((req, res) => {
      req.once('end', () => (bodiesRead += 1));
      listener(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    server.close();
    await rpc.stop();
    await upstream.close();
  });

  it('100 concurrent calls for the same unknown signature make one upstream request', async () => {
    const sig = randomSignature();
    const release = upstream.hold();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[sig]] });
    const answers = Array.from({ length: 100 }, () =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        (r) => r.json() as Promise<{ result?: { value: unknown[] } }>,
      ),
    );
    // The upstream holds its answer until every call has reached the plugin: then none can miss the request under way.
    await waitFor(() => bodiesRead === 100 && upstream.requestCount >= 1, 'all 100 calls to arrive');
    await new Promise((r) => setImmediate(r));
    release();
    const values = (await Promise.all(answers)).map((a) => a.result?.value);
    expect(values).to.deep.equal(Array.from({ length: 100 }, () => [null]));
    expect(upstream.requestCount).to.equal(1);
  });
});
