// Every error the reference server sends, read by the two clients real users point at it:
// @solana/kit in its default development build (NODE_ENV unset, which builds a readable
// message from a table of codes) and @solana/web3.js 1.x, over HTTP and WebSocket. kit's
// subscriptions client runs in a child process: a throw in its socket listener would kill it.
import { expect } from 'chai';
import {
  createDefaultRpcTransport,
  createSolanaRpc,
  createSolanaRpcFromTransport,
  isSolanaError,
  signature as kitSignature,
  SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  type RpcTransport,
} from '@solana/kit';
import { Connection, SolanaJSONRPCError } from '@solana/web3.js';
import type { RunningServer } from '@rollup-router/server';
import { expectKitReadRefusal, kitSubscribesTwice } from '@rollup-router/test-support/kit-subscriber';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { closeWeb3Socket } from '@rollup-router/test-support/web3-socket';
import { startWith } from '@rollup-router/test-support/ws-server';
import { signature, standInUpstream, type StandIn } from './server.harness.js';

const INTERNAL = -32603;

type Server = RunningServer & { cleanup(): void };

/** The router's cause, thrown by a wrapped kit transport (docs/wire-errors.md, "Reading data.code"). */
class RouterError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A kit RPC whose transport throws the router's cause: kit's SolanaError keeps only the message. */
function kitReadingCauses(url: string) {
  const inner = createDefaultRpcTransport({ url });
  const transport = (async (request) => {
    const response = (await inner(request)) as { error?: { message: string; data?: { code?: bigint } } };
    const cause = response.error?.data?.code;
    if (cause !== undefined)
      throw new RouterError(Number(cause), response.error!.message, response.error!.data!);
    return response;
  }) as RpcTransport;
  return createSolanaRpcFromTransport(transport);
}

/** What kit's development build throws for one getSignatureStatuses call. */
async function kitCallFails(url: string): Promise<unknown> {
  try {
    await createSolanaRpc(url)
      .getSignatureStatuses([kitSignature(signature())])
      .send();
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded');
}

async function web3CallFails(url: string): Promise<Error> {
  const connection = new Connection(url, { commitment: 'confirmed', disableRetryOnRateLimit: true });
  try {
    await connection.getSignatureStatus(signature());
  } catch (err) {
    return err as Error;
  }
  throw new Error('the call succeeded');
}

/** The JSON-RPC error object a web3.js HTTP failure quotes in its message (`<status> <text>: <body>`). */
function quotedBody(err: Error): { code: number; message: string; data?: Record<string, unknown> } {
  const body = err.message.slice(err.message.indexOf('{'));
  return (JSON.parse(body) as { error: { code: number; message: string; data?: Record<string, unknown> } })
    .error;
}

describe('clients read every error the router sends (kit development build, web3.js)', function () {
  this.timeout(30_000);
  let savedNodeEnv: string | undefined;
  let gone: StandIn;
  let hanging: StandIn;
  const servers: Server[] = [];

  const start = async (config: Record<string, unknown>): Promise<Server> => {
    const server = await startWith(config);
    servers.push(server);
    return server;
  };
  const wsUrl = (server: Server) => server.url.replace('http', 'ws');

  before(async () => {
    // kit reads NODE_ENV on every error it builds: make sure it is the development build here too.
    savedNodeEnv = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    gone = await standInUpstream();
    await gone.close();
    hanging = await standInUpstream();
    hanging.behaviour = { kind: 'hang' };
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      await server.shutdown(0);
      server.cleanup();
    }
  });
  after(async () => {
    await hanging.close();
    if (savedNodeEnv !== undefined) process.env.NODE_ENV = savedNodeEnv;
  });

  it("a plugin's error (no upstream reachable): kit and web3.js read our message, data.code holds the cause", async () => {
    const server = await start({ statuses: { upstreams: [{ url: gone.url }] } });

    const kitError = await kitCallFails(server.url);
    expect(isSolanaError(kitError, SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR), String(kitError)).to.equal(true);
    expect((kitError as Error).message).to.equal(
      'JSON-RPC error: Internal JSON-RPC error (Upstream unreachable)',
    );

    const failed = await kitReadingCauses(server.url)
      .getSignatureStatuses([kitSignature(signature())])
      .send()
      .catch((err: unknown) => err);
    expect(failed).to.be.instanceOf(RouterError);
    expect((failed as RouterError).code).to.equal(-32061);
    expect((failed as RouterError).message).to.equal('Upstream unreachable');
    expect((failed as RouterError).data.upstreams)
      .to.be.an('array')
      .with.length(1);

    const web3Error = await web3CallFails(server.url);
    expect(web3Error).to.be.instanceOf(SolanaJSONRPCError);
    expect(web3Error.message).to.equal('failed to get signature status: Upstream unreachable');
    const { code, data } = web3Error as SolanaJSONRPCError;
    expect(code).to.equal(INTERNAL);
    expect((data as { code: number }).code).to.equal(-32061);
  });

  it('deadline exceeded: kit and web3.js read it, data keeps deadlineMs beside the cause', async () => {
    const server = await start({
      limits: { callDeadlineMs: 200 },
      statuses: { upstreams: [{ url: hanging.url }], upstreamTimeoutMs: 20_000, deadlineMs: 20_000 },
    });
    const kitError = await kitCallFails(server.url);
    expect(isSolanaError(kitError, SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR), String(kitError)).to.equal(true);
    expect((kitError as Error).message).to.include('(Deadline exceeded)');

    const web3Error = (await web3CallFails(server.url)) as SolanaJSONRPCError;
    expect(web3Error.message).to.equal('failed to get signature status: Deadline exceeded');
    expect(web3Error.code).to.equal(INTERNAL);
    expect(web3Error.data).to.deep.equal({ code: -32052, deadlineMs: 200 });
  });

  it('rate limited over HTTP (429): kit reads the status, web3.js the body, whose data holds the cause', async () => {
    const server = await start({ rateLimit: { points: 1, durationSeconds: 60 } });
    await createSolanaRpc(server.url)
      .getSlot()
      .send()
      .catch(() => undefined);

    const kitError = await kitCallFails(server.url);
    expect(isSolanaError(kitError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR), String(kitError)).to.equal(true);
    expect((kitError as { context: { statusCode: number } }).context.statusCode).to.equal(429);

    const web3Error = await web3CallFails(server.url);
    expect(web3Error.message).to.match(/^429 Too Many Requests: /);
    const body = quotedBody(web3Error);
    expect(body.code).to.equal(INTERNAL);
    expect(body.message).to.equal('Too many requests');
    expect(body.data?.code).to.equal(-32051);
    expect(body.data?.retryAfterSeconds).to.be.a('number');
  });

  it('shutting down over HTTP (503): the body carries the cause in data.code', async () => {
    const server = await start({});
    server.rpc.drain();
    const kitError = await kitCallFails(server.url);
    expect(isSolanaError(kitError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR), String(kitError)).to.equal(true);

    const body = quotedBody(await web3CallFails(server.url));
    expect(body).to.deep.equal({
      code: INTERNAL,
      message: 'Server is shutting down',
      data: { code: -32053 },
    });
  });

  it("path-style endpoints answer under the same rule: the specification's callers get -32603 with data.code", async () => {
    const server = await start({ statuses: { upstreams: [{ url: gone.url }] } });
    const answer = await fetch(new URL('getSignatureStatuses', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getSignatureStatuses',
        params: [[signature()]],
      }),
    });
    const { error } = (await answer.json()) as {
      error: { code: number; message: string; data: { code: number } };
    };
    expect([error.code, error.message, error.data.code]).to.deep.equal([
      INTERNAL,
      'Upstream unreachable',
      -32061,
    ]);
  });

  it('rate limited over WebSocket: the kit client survives and reads a SolanaError', async () => {
    // Two points: the upgrade costs one (it is admitted like any request), the first subscribe the other.
    const server = await start({ rateLimit: { points: 2, durationSeconds: 60 } });
    const run = await kitSubscribesTwice(wsUrl(server));
    expectKitReadRefusal(run, 'Too many requests');
  });

  it('too many subscriptions over WebSocket: the kit client survives and reads a SolanaError', async () => {
    const server = await start({ websocket: { limits: { maxSubscriptionsPerConnection: 1 } } });
    const run = await kitSubscribesTwice(wsUrl(server));
    expectKitReadRefusal(run, 'Too many subscriptions');
  });

  it('shutting down, over a WebSocket opened before: the kit client survives and reads a SolanaError', async () => {
    const server = await start({});
    const run = await kitSubscribesTwice(wsUrl(server), { between: () => server.rpc.drain() });
    expectKitReadRefusal(run, 'Server is shutting down');
  });

  it('web3.js over WebSocket: a refused subscribe reaches its log with our message and data.code', async () => {
    const server = await start({ websocket: { limits: { maxSubscriptionsPerConnection: 1 } } });
    const connection = new Connection(server.url, { commitment: 'confirmed', wsEndpoint: wsUrl(server) });
    // web3.js reports a refused subscribe only on console.error (and subscribes again): read it there.
    // Other lines reach console.error too (a Connection of an earlier test logging "ws error: ..." as
    // its socket retries), so only a line carrying an error object is the refusal.
    const logged: { error: unknown }[] = [];
    const consoleError = console.error;
    console.error = (_what: unknown, detail?: unknown) => {
      if (typeof detail === 'object' && detail !== null && 'error' in detail)
        logged.push(detail as { error: unknown });
    };
    const ids: number[] = [];
    try {
      ids.push(connection.onSignature(signature(), () => undefined));
      await waitFor(() => server.rpc.subscriptions.active === 1, 'the first subscription');
      ids.push(connection.onSignature(signature(), () => undefined));
      const { error } = await waitFor(() => logged[0], 'the refusal in the log');
      expect(error).to.deep.include({ code: INTERNAL, message: 'Too many subscriptions' });
      expect((error as { data: { code: number } }).data.code).to.equal(-32054);
    } finally {
      for (const id of ids) await connection.removeSignatureListener(id);
      await closeWeb3Socket(connection);
      console.error = consoleError;
    }
  });
});
