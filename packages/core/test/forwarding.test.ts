import { expect } from 'chai';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import {
  attachWebSocket,
  createLogger,
  type CallEvent,
  createNodeListener,
  createRpc,
  defineErrors,
  Forwarder,
  forwardedMethods,
  JsonRpcClient,
} from '@rollup-router/core';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { memoryLog } from '@rollup-router/test-support/http';

const ERRORS = defineErrors({
  UNAVAILABLE: { code: -32050, message: 'Upstream unavailable', meaning: 'no answer from the node' },
  TOO_LARGE: { code: -32054, message: 'Reply too large', meaning: 'the node answered past the cap' },
});

/** A JSON-RPC node that never answers: it records each request and when its requester left. */
class SilentNode {
  readonly received: IncomingMessage[] = [];
  readonly left: IncomingMessage[] = [];
  private readonly server = http.createServer((req) => {
    this.received.push(req);
    req.resume();
    req.socket.on('close', () => this.left.push(req));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The request `send` makes the node get, once it has it, still waited for. */
  async next(send: () => void): Promise<IncomingMessage> {
    const before = this.received.length;
    send();
    await waitFor(() => this.received.length > before, 'the node has the request');
    const sent = this.received.at(-1)!;
    expect(this.left, 'still waited for while its caller waits').not.to.include(sent);
    return sent;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface ForwardingServer {
  readonly url: string;
  /** The calls that ended, as the core reports them. */
  readonly ended: CallEvent[];
  close(): Promise<void>;
}

/**
 * A call of `getSlotWhenReleased` held before it reaches the forwarder: its route is decided
 * once `release` is called. `response` is its HTTP response, to see its client leave.
 */
interface HeldCall {
  readonly response: ServerResponse;
  release(): void;
}

/**
 * The core serving one forwarded method to `url`, over HTTP and WebSocket, each call given
 * `deadlineMs`; and the same method held back (`getSlotWhenReleased`), handed to `hold`.
 */
async function forwardingServer(
  url: string,
  deadlineMs: number,
  hold: (call: HeldCall) => void = () => undefined,
): Promise<ForwardingServer> {
  const forwarder = new Forwarder(new JsonRpcClient(), {
    timeoutMs: 60_000,
    errors: { unavailable: ERRORS.UNAVAILABLE, tooLarge: ERRORS.TOO_LARGE },
  });
  const target = { name: 'silent', url };
  const rpc = createRpc({
    logger: createLogger({ destination: memoryLog().stream }),
    limits: { callDeadlineMs: deadlineMs },
    context: (request) => (request.transport === 'http' ? request.res : undefined),
    methods: forwardedMethods(forwarder, [
      { name: 'getSlot', params: { type: 'array' }, targetOf: () => target },
      {
        name: 'getSlotWhenReleased',
        params: { type: 'array' },
        targetOf: (_params, ctx) =>
          new Promise<typeof target>((resolve) =>
            hold({ response: ctx.host as HeldCall['response'], release: () => resolve(target) }),
          ),
      },
    ]),
  });
  const ended: CallEvent[] = [];
  rpc.onCall((event) => ended.push(event));
  const server = http.createServer(createNodeListener(rpc));
  const sockets = attachWebSocket(server, rpc, { path: '/' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ended,
    close: async () => {
      await sockets.close(0);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await forwarder.close();
    },
  };
}

describe('forwarded methods follow their call to its end', () => {
  const node = new SilentNode();
  let patient: ForwardingServer;
  let hasty: ForwardingServer;
  let held: HeldCall | undefined;

  before(async () => {
    const url = await node.start();
    // A deadline far off: only the client's leaving can end a call.
    patient = await forwardingServer(url, 60_000, (call) => (held = call));
    hasty = await forwardingServer(url, 300);
  });
  after(async () => {
    await Promise.all([patient.close(), hasty.close()]);
    await node.close();
  });

  it('drops its upstream request when its HTTP client goes away', async () => {
    const req = http.request(`${patient.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    const sent = await node.next(() => req.end('{"jsonrpc":"2.0","id":1,"method":"getSlot"}'));
    req.destroy();
    await waitFor(() => node.left.includes(sent), 'the upstream request is dropped');
  });

  it('sends nothing upstream when its HTTP client left before the call reached the forwarder', async () => {
    held = undefined;
    const before = node.received.length;
    const req = http.request(`${patient.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end('{"jsonrpc":"2.0","id":4,"method":"getSlotWhenReleased"}');
    const call = await waitFor(() => held, 'the call waits for its route');
    const closed = new Promise((resolve) => call.response.once('close', resolve));
    req.destroy();
    await closed;
    // Only now does the call reach the forwarder: its client is gone, so nothing is sent,
    // and the call ends at once (sent, it would wait for the node until its deadline).
    call.release();
    const event = await waitFor(
      () => patient.ended.find((e) => e.method === 'getSlotWhenReleased'),
      'the call ends',
    );
    expect(event.code).to.equal(ERRORS.UNAVAILABLE.code);
    expect(node.received.length, 'requests the node got').to.equal(before);
  });

  it('drops its upstream request when its deadline passes, and answers -32052', async () => {
    const before = node.received.length;
    const res = await fetch(hasty.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":2,"method":"getSlot"}',
    });
    expect(((await res.json()) as { error: { code: number } }).error.code).to.equal(-32052);
    expect(node.received.length).to.equal(before + 1);
    const sent = node.received.at(-1)!;
    await waitFor(() => node.left.includes(sent), 'the upstream request is dropped');
  });

  it('over WebSocket, drops its upstream request when the connection closes', async () => {
    const socket = new WebSocket(patient.url.replace('http', 'ws'));
    await new Promise((resolve) => socket.once('open', resolve));
    const sent = await node.next(() => socket.send('{"jsonrpc":"2.0","id":3,"method":"getSlot"}'));
    socket.terminate();
    await waitFor(() => node.left.includes(sent), 'the upstream request is dropped');
  });
});
