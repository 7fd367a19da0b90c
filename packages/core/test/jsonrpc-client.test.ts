import { getEventListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import { JsonRpcClient } from '../src/index.js';
import { redactUrl } from '../src/redact-url.js';
import { listen, type Listening } from '@rollup-router/test-support/http';

interface Node extends Listening {
  /** Requests received, retries included. */
  readonly requests: number;
}

/** A loopback JSON-RPC server whose answer to each request the test decides. */
async function node(
  answer: (call: { id: unknown; method: string }, req: IncomingMessage, res: ServerResponse) => void,
): Promise<Node> {
  let requests = 0;
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      answer(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string }, req, res);
    });
  });
  return {
    url: server.url,
    port: server.port,
    close: () => server.close(),
    get requests() {
      return requests;
    },
  };
}

const json = (res: ServerResponse, body: unknown, status = 200): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

describe('JsonRpcClient', () => {
  const client = new JsonRpcClient();
  let server: Node | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  after(() => client.close());

  it('sends a JSON-RPC request and returns the reply, errors included, with the HTTP status', async () => {
    server = await node((call, _req, res) =>
      call.method === 'ok'
        ? json(res, { jsonrpc: '2.0', result: 'ok', id: call.id })
        : json(
            res,
            { jsonrpc: '2.0', error: { code: -32005, message: 'Node is unhealthy' }, id: call.id },
            503,
          ),
    );
    expect(await client.call(server.url, { method: 'ok', id: 9, timeoutMs: 1000 })).to.deep.equal({
      kind: 'reply',
      httpStatus: 200,
      reply: { jsonrpc: '2.0', result: 'ok', id: 9 },
      text: '{"jsonrpc":"2.0","result":"ok","id":9}',
    });
    const error = await client.call(server.url, { method: 'behind', timeoutMs: 1000 });
    expect(error).to.include({ kind: 'reply', httpStatus: 503 });
  });

  it('checks each reply against the JSON-RPC response schema, and a success against its id', async () => {
    const replies: unknown[] = [
      'not json',
      { result: 1, id: 1 },
      { jsonrpc: '2.0', result: 1, error: { code: 1, message: 'both' }, id: 1 },
      { jsonrpc: '2.0', result: 1, id: 2 },
    ];
    server = await node((_call, _req, res) => json(res, replies.shift()!));
    const problems = [];
    for (let i = 0; i < 4; i++) {
      const outcome = await client.call(server.url, { method: 'm', id: 1, timeoutMs: 1000 });
      problems.push(outcome.kind === 'bad_reply' ? outcome.problem : outcome.kind);
    }
    expect(problems).to.deep.equal(['not_json', 'not_jsonrpc', 'not_jsonrpc', 'wrong_id']);
  });

  it('a call that timed out while waiting for a connection is never sent (a late send could still land)', async () => {
    const methods: string[] = [];
    server = await node((call, _req, res) => {
      methods.push(call.method);
      setTimeout(() => json(res, { jsonrpc: '2.0', result: call.method, id: call.id }), 200);
    });
    const oneConnection = new JsonRpcClient({ connections: 1 });
    try {
      const first = oneConnection.call(server.url, { method: 'holdsTheConnection', timeoutMs: 5_000 });
      const queued = await oneConnection.call(server.url, { method: 'waitedTooLong', timeoutMs: 50 });
      expect(queued).to.deep.include({ kind: 'timeout' });
      expect(await first).to.deep.include({ kind: 'reply' });
      // The connection is free again: a request still queued would be sent now.
      expect(await oneConnection.call(server.url, { method: 'after', timeoutMs: 5_000 })).to.deep.include({
        kind: 'reply',
      });
      expect(methods).to.deep.equal(['holdsTheConnection', 'after']);
    } finally {
      await oneConnection.close();
    }
  });

  it('retries a dropped connection only as many times as asked, and never a timeout', async () => {
    server = await node((call, req) => {
      if (call.method === 'drop') req.socket.destroy(); // and 'hang' never answers
    });
    expect(
      await client.call(server.url, { method: 'drop', timeoutMs: 1000, connectionRetries: 1 }),
    ).to.include({
      kind: 'unreachable',
    });
    expect(server.requests).to.equal(2);
    expect(
      await client.call(server.url, { method: 'hang', timeoutMs: 50, connectionRetries: 1 }),
    ).to.deep.equal({
      kind: 'timeout',
      detail: 'no answer within 50 ms',
    });
    expect(server.requests).to.equal(3);
  });

  it('an answer cut off mid-body is unreachable, one stalled mid-body times out, and neither hangs', async () => {
    server = await node((call, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0","result":"');
      if (call.method === 'cut') setTimeout(() => res.destroy(), 20); // 'stall' sends no more
    });
    expect(await client.call(server.url, { method: 'cut', timeoutMs: 5000 })).to.include({
      kind: 'unreachable',
    });
    expect(await client.call(server.url, { method: 'stall', timeoutMs: 100 })).to.deep.equal({
      kind: 'timeout',
      detail: 'no answer within 100 ms',
    });
    const controller = new AbortController();
    const pending = client.call(server.url, {
      method: 'stall',
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    expect(await pending).to.deep.equal({ kind: 'aborted', detail: 'cancelled' });
  });

  it("reports the caller's own end as aborted", async () => {
    server = await node(() => undefined);
    const controller = new AbortController();
    const pending = client.call(server.url, { method: 'hang', timeoutMs: 10_000, signal: controller.signal });
    controller.abort();
    expect(await pending).to.deep.equal({ kind: 'aborted', detail: 'cancelled' });
  });

  it("leaves no listener on the caller's signal once a call has ended, answered or failed", async () => {
    server = await node((call, _req, res) =>
      call.method === 'ok' ? json(res, { jsonrpc: '2.0', result: 1, id: call.id }) : res.destroy(),
    );
    // One signal for many calls, as a lookup's deadline is for its upstream calls.
    const caller = new AbortController().signal;
    expect(await client.call(server.url, { method: 'ok', timeoutMs: 5000, signal: caller })).to.include({
      kind: 'reply',
    });
    expect(
      await client.call(server.url, {
        method: 'drop',
        timeoutMs: 5000,
        signal: caller,
        connectionRetries: 1,
      }),
    ).to.include({ kind: 'unreachable' });
    expect(getEventListeners(caller, 'abort')).to.have.length(0);
  });

  it('refuses a URL that is not http(s) without a request', async () => {
    expect(await client.call('ftp://example.com/', { method: 'm', timeoutMs: 100 })).to.deep.equal({
      kind: 'unreachable',
      detail: 'not an http(s) URL',
    });
  });
});

describe('redactUrl', () => {
  it('shows the origin, and /… where a path, a query or credentials were hidden', () => {
    expect(
      [
        'https://api.mainnet-beta.solana.com',
        'https://api.mainnet-beta.solana.com/',
        'https://rpc.example/SECRET',
        'https://rpc.example/?api-key=SECRET',
        'https://user:SECRET@rpc.example/',
        'not a url',
      ].map(redactUrl),
    ).to.deep.equal([
      'https://api.mainnet-beta.solana.com',
      'https://api.mainnet-beta.solana.com',
      'https://rpc.example/…',
      'https://rpc.example/…',
      'https://rpc.example/…',
      '(invalid URL)',
    ]);
  });
});
