// Traces as a collector receives them: the service exports to an OTLP receiver on loopback
// over real sockets; each test's service is stopped before its spans are read, which
// exports what is pending (no waiting on the exporter's schedule).
import { expect } from 'chai';
import {
  defineErrors,
  defineMethod,
  definePlugin,
  forwardedMethods,
  Forwarder,
  JsonRpcClient,
  RpcError,
  type ForwardTarget,
  type RpcOptions,
} from '@rollup-router/core';
import { listen, post } from '@rollup-router/test-support/http';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '@rollup-router/test-support/otlp-receiver';
import { closedPortUrl } from '@rollup-router/test-support/reusable-port';
import { serveSockets, type SocketServed } from '@rollup-router/test-support/socket-server';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const ERROR = 2;

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;

const NodeError = defineErrors({
  NODE_UNAVAILABLE: { code: -32090, message: 'Node unavailable', meaning: 'the node did not answer' },
  NODE_REPLY_TOO_LARGE: { code: -32091, message: 'Node reply too large', meaning: 'past its cap' },
});

/** A JSON-RPC node on loopback: eth_blockNumber answers 0x2a, anything else its own -32000. */
async function node(): Promise<{ url: string; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const server = await listen((req, res) => {
    calls += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        call.method === 'eth_blockNumber'
          ? `{"jsonrpc":"2.0","id":${call.id},"result":"0x2a"}`
          : `{"jsonrpc":"2.0","id":${call.id},"error":{"code":-32000,"message":"header not found"}}`,
      );
    });
  });
  return { url: server.url, calls: () => calls, close: server.close };
}

const add = defineMethod<{ a: number; b: number }, number>({
  name: 'add',
  params: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  handler: ({ a, b }) => a + b,
});
const refuse = defineMethod<unknown[], never>({
  name: 'refuse',
  handler: () => {
    throw new RpcError(-32010, 'Refused here');
  },
});

describe('core: OpenTelemetry traces', function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  let upstream: Awaited<ReturnType<typeof node>>;
  let chainDown: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    upstream = await node();
    // Nobody listens there: the forwarder finds it unreachable.
    chainDown = await closedPortUrl();
  });
  after(async () => {
    await upstream?.close();
    await receiver?.close();
  });

  /** A service with tracing on, serving over HTTP (and WebSocket at the same port). */
  async function service(extra: Pick<RpcOptions, 'tracing'> = {}): Promise<SocketServed> {
    const nodes: Record<string, ForwardTarget> = {
      '0x1': { name: 'chain-1', url: upstream.url },
      '0x9': { name: 'chain-down', url: chainDown },
    };
    const forwarder = new Forwarder(new JsonRpcClient(), {
      timeoutMs: 5000,
      errors: { unavailable: NodeError.NODE_UNAVAILABLE, tooLarge: NodeError.NODE_REPLY_TOO_LARGE },
    });
    return serveSockets({
      methods: [
        add,
        refuse,
        // Answers at once, and calls the node later: work the call started that outlives it.
        defineMethod<unknown[], string>({
          name: 'kickOff',
          handler: () => {
            setTimeout(
              () => void forwarder.call(nodes['0x1']!, 'eth_blockNumber', []).catch(() => undefined),
              50,
            );
            return 'started';
          },
        }),
      ],
      plugins: [
        definePlugin({
          name: 'evm',
          errors: Object.values(NodeError),
          methods: forwardedMethods(forwarder, [
            {
              name: 'eth_blockNumber',
              params: { type: 'array' },
              targetOf: (p: readonly unknown[]) => nodes[String(p.at(-1))]!,
            },
            {
              name: 'eth_getBalance',
              params: { type: 'array' },
              targetOf: (p: readonly unknown[]) => nodes[String(p.at(-1))]!,
            },
          ]),
          stop: () => forwarder.close(),
        }),
      ],
      tracing: { enabled: true, endpoint: receiver.url, serviceName: 'tracing-test' },
      ...extra,
    });
  }

  const call = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    post(url, JSON.stringify(body), { 'content-type': 'application/json', ...headers });

  /** The spans of the trace `traceId`, once `count` of them came. */
  const traceOf = (traceId: string, count: number): Promise<ReceivedSpan[]> =>
    receiver
      .waitForSpans(
        `${count} spans of trace ${traceId}`,
        (s) => s.filter((x) => x.traceId === traceId).length >= count,
      )
      .then((spans) => spans.filter((x) => x.traceId === traceId));

  it("a call over HTTP is one server span named after its method, in the client's trace, with the RPC and JSON-RPC attributes", async () => {
    const svc = await service();
    const answer = await call(
      svc.url,
      { jsonrpc: '2.0', id: 7, method: 'add', params: { a: 1, b: 2 } },
      { traceparent: TRACEPARENT },
    );
    expect(answer.text).to.equal('{"jsonrpc":"2.0","result":3,"id":7}');
    await svc.close();

    const [span] = await traceOf(CLIENT_TRACE, 1);
    expect(span!.name).to.equal('add');
    expect(span!.kind).to.equal(SERVER);
    expect(span!.parentSpanId).to.equal(CLIENT_SPAN);
    expect(span!.attributes).to.deep.equal({
      'rpc.system.name': 'jsonrpc',
      'rpc.method': 'add',
      'jsonrpc.protocol.version': '2.0',
      'jsonrpc.request.id': '7',
      'network.peer.address': '127.0.0.1',
    });
    expect(span!.status.code).to.equal(0);
    expect(span!.resource['service.name']).to.equal('tracing-test');
    expect(receiver.requests.at(-1)).to.deep.equal({
      path: '/v1/traces',
      contentType: 'application/x-protobuf',
    });
  });

  it("a batch is the request's server span with each call's span under it; an error and an unknown method are said as the conventions say", async () => {
    const svc = await service();
    const trace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
    await call(
      svc.url,
      [
        { jsonrpc: '2.0', id: 'first', method: 'add', params: { a: 1, b: 1 } },
        { jsonrpc: '2.0', id: 2, method: 'refuse' },
        { jsonrpc: '2.0', id: 3, method: 'no_such_method' },
        { jsonrpc: '2.0', method: 'add', params: { a: 2, b: 2 } },
      ],
      { traceparent: `00-${trace}-${CLIENT_SPAN}-01` },
    );
    await svc.close();

    const spans = await traceOf(trace, 5);
    const batch = spans.find((s) => s.name === 'batch')!;
    expect(batch.kind).to.equal(SERVER);
    expect(batch.parentSpanId).to.equal(CLIENT_SPAN);
    expect(batch.attributes).to.include({ 'rpc.system.name': 'jsonrpc', 'rollup_router.batch.length': 4 });
    const calls = spans.filter((s) => s !== batch);
    expect(calls.map((s) => s.parentSpanId)).to.deep.equal(calls.map(() => batch.spanId));
    expect(calls.map((s) => s.kind)).to.deep.equal(calls.map(() => INTERNAL));
    expect(calls.map((s) => s.name).sort()).to.deep.equal(['add', 'add', 'jsonrpc', 'refuse']);

    const first = calls.find((s) => s.attributes['jsonrpc.request.id'] === 'first')!;
    expect(first.status.code).to.equal(0);
    // A notification has no id to show.
    const notification = calls.find((s) => s.name === 'add' && s !== first)!;
    expect(notification.attributes).to.not.have.property('jsonrpc.request.id');

    const refused = calls.find((s) => s.name === 'refuse')!;
    expect(refused.attributes).to.include({ 'rpc.status_code': '-32010', 'error.type': '-32010' });
    expect(refused.status).to.deep.equal({ code: ERROR, message: 'Refused here' });

    // A client's name is not a span name (any client could make names without end).
    const unknown = calls.find((s) => s.name === 'jsonrpc')!;
    expect(unknown.attributes).to.include({
      'rpc.method': '_OTHER',
      'rpc.method_original': 'no_such_method',
      'rpc.status_code': '-32601',
    });
  });

  it("an upstream call is a client span under the call's, naming the upstream by its name, its failure said", async () => {
    const svc = await service();
    const trace = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
    const traceparent = `00-${trace}-${CLIENT_SPAN}-01`;
    const ok = await call(
      svc.url,
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: ['0x1'] },
      { traceparent },
    );
    expect(ok.text).to.include('"result":"0x2a"');
    const rpcError = await call(
      svc.url,
      { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: ['0x0', '0x1'] },
      { traceparent },
    );
    expect(rpcError.text).to.include('-32000');
    const down = await call(
      svc.url,
      { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: ['0x9'] },
      { traceparent },
    );
    expect(down.text).to.include('-32090');
    await svc.close();

    const spans = await traceOf(trace, 6);
    const servers = spans.filter((s) => s.kind === SERVER);
    const clients = spans.filter((s) => s.kind === CLIENT);
    expect(clients).to.have.length(3);
    for (const client of clients) {
      const parent = servers.find((s) => s.spanId === client.parentSpanId);
      expect(parent, `parent of ${client.name}`).to.not.equal(undefined);
      expect(client.name).to.equal(parent!.name);
      expect(client.attributes).to.include({
        'rpc.system.name': 'jsonrpc',
        'rpc.method': client.name,
        'jsonrpc.protocol.version': '2.0',
      });
      expect(client.attributes['jsonrpc.request.id']).to.be.a('string');
      // Never the URL: the name the operator gave it.
      expect(Object.values(client.attributes).join(' ')).to.not.include('127.0.0.1');
    }
    const byPeer = (name: string, method: string) =>
      clients.find((s) => s.attributes['service.peer.name'] === name && s.name === method)!;
    expect(byPeer('chain-1', 'eth_blockNumber').status.code).to.equal(0);
    expect(byPeer('chain-1', 'eth_getBalance').attributes).to.include({
      'rpc.status_code': '-32000',
      'error.type': '-32000',
    });
    expect(byPeer('chain-1', 'eth_getBalance').status).to.deep.equal({
      code: ERROR,
      message: 'header not found',
    });
    expect(byPeer('chain-down', 'eth_blockNumber').attributes).to.include({ 'error.type': 'unreachable' });
    expect(byPeer('chain-down', 'eth_blockNumber').attributes).to.not.have.property('rpc.status_code');
  });

  it('an upstream call made after its call was answered (a timer the call set) is no span of that call', async () => {
    const svc = await service();
    const trace = 'ddddddddddddddddddddddddddddddd4';
    const before = upstream.calls();
    const answer = await call(
      svc.url,
      { jsonrpc: '2.0', id: 1, method: 'kickOff' },
      { traceparent: `00-${trace}-${CLIENT_SPAN}-01` },
    );
    expect(answer.text).to.include('"started"');
    await waitFor(() => upstream.calls() > before, 'the late upstream call');
    await svc.close();

    const spans = await traceOf(trace, 1);
    expect(spans.map((s) => [s.name, s.kind])).to.deep.equal([['kickOff', SERVER]]);
  });

  it("a call over WebSocket starts a trace of its own, linked to the upgrade's traceparent", async () => {
    const svc = await service();
    const socket = await TestSocket.open(svc.ws, { headers: { traceparent: TRACEPARENT } });
    const answer = await socket.call('add', { a: 20, b: 22 }, 'ws-1');
    expect(answer.result).to.equal(42);
    await socket.close();
    await svc.close();

    const span = await receiver
      .waitForSpans('the websocket call', (s) => s.some((x) => x.attributes['jsonrpc.request.id'] === 'ws-1'))
      .then((s) => s.find((x) => x.attributes['jsonrpc.request.id'] === 'ws-1')!);
    expect(span.name).to.equal('add');
    expect(span.kind).to.equal(SERVER);
    expect(span.traceId).to.not.equal(CLIENT_TRACE);
    expect(span.parentSpanId).to.equal('');
    expect(span.links).to.deep.equal([{ traceId: CLIENT_TRACE, spanId: CLIENT_SPAN }]);
  });

  it("samplingRatio 0 records no trace that starts here, and follows a client's sampled flag", async () => {
    const svc = await service({
      tracing: { enabled: true, endpoint: receiver.url, serviceName: 'sampled-test', samplingRatio: 0 },
    });
    const sampled = 'ccccccccccccccccccccccccccccccc3';
    await call(svc.url, { jsonrpc: '2.0', id: 'unsampled', method: 'add', params: { a: 1, b: 1 } });
    await call(
      svc.url,
      { jsonrpc: '2.0', id: 'sampled', method: 'add', params: { a: 1, b: 1 } },
      {
        traceparent: `00-${sampled}-${CLIENT_SPAN}-01`,
      },
    );
    await svc.close();

    await traceOf(sampled, 1);
    const mine = receiver.spans.filter((s) => s.resource['service.name'] === 'sampled-test');
    expect(mine.map((s) => s.attributes['jsonrpc.request.id'])).to.deep.equal(['sampled']);
  });
});
