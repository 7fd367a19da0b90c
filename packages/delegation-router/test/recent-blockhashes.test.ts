// getBlockhashForAccounts' shared read of a chain's latest blockhash, against a real JSON-RPC
// server on loopback that counts the reads and fails the first one.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { JsonRpcClient } from '@rollup-router/core';
import { RecentBlockhashes } from '../src/upstream/recent-blockhashes.js';
import { upstreamCaller, type UpstreamCaller } from '../src/upstream/upstream-caller.js';
import { baseChainUpstream } from '../src/upstream/upstream.js';

describe('RecentBlockhashes', () => {
  let server: Server;
  let reads = 0;
  let failNext = false;
  let caller: UpstreamCaller;
  let chain: ReturnType<typeof baseChainUpstream>;

  before(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        reads++;
        const { id } = JSON.parse(text) as { id: number };
        const value = { blockhash: `hash-${reads}`, lastValidBlockHeight: 100 + reads };
        const body = failNext
          ? { jsonrpc: '2.0', id, error: { code: -32005, message: 'Node is behind' } }
          : { jsonrpc: '2.0', id, result: { context: { slot: reads }, value } };
        failNext = false;
        res.setHeader('content-type', 'application/json').end(JSON.stringify(body));
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    chain = baseChainUpstream(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    caller = upstreamCaller(new JsonRpcClient(), 2000);
  });
  after(async () => {
    await caller.close();
    server.close();
  });
  beforeEach(() => (reads = 0));

  // A call of the service: its signal, and where it is told which upstream answered.
  const call = { signal: new AbortController().signal, answeredBy: () => undefined };

  it('shares one read between the calls within maxAgeMs', async () => {
    const recent = new RecentBlockhashes(caller, 60_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => recent.of(chain, call)));
    expect(reads).to.equal(1);
    expect(new Set(answers.map((a) => a.blockhash))).to.deep.equal(new Set(['hash-1']));
  });

  it('does not keep a failed read: the next call asks the chain again', async () => {
    const recent = new RecentBlockhashes(caller, 60_000);
    failNext = true;
    const failed = await recent.of(chain, call).catch((err: { message: string }) => err.message);
    expect(failed).to.equal('Node is behind');
    expect(await recent.of(chain, call)).to.deep.equal({ blockhash: 'hash-2', lastValidBlockHeight: 102 });
    expect(reads).to.equal(2);
  });

  it('asks the chain on every call with maxAgeMs 0', async () => {
    const recent = new RecentBlockhashes(caller, 0);
    await recent.of(chain, call);
    await recent.of(chain, call);
    expect(reads).to.equal(2);
  });
});
