// A record of the on-chain MDP registry names a URL the router then calls: the delegation
// router's calls and websockets to that ER, and statusesFromRoutes. The record is registered
// through the real program on validator A and points at an ER stand-in on loopback; the
// plugins are the server's own, built from a real config file. Without
// routes.chain.allowPrivateAddresses the stand-in receives nothing; with it, it is called.
import { once } from 'node:events';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import type { KeyPairSigner } from '@solana/kit';
import { WebSocketServer } from 'ws';
import { buildPlugins, loadConfig, UpstreamWatch, type ServerPlugins } from '@rollup-router/server';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { memoryLog } from '@rollup-router/test-support/http';
import { CHAIN_URL, fundedIdentity, register, unregister } from '@rollup-router/test-support/mdp';
import { freePortPair } from '@rollup-router/test-support/reusable-port';
import { serveSockets, type SocketServed } from '@rollup-router/test-support/socket-server';
import { newIdentity, randomSignature } from '@rollup-router/test-support/solana';
import { tempDir, type TempDir } from '@rollup-router/test-support/temp-dir';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';

const REFUSED = /address 127\.0\.0\.1 is loopback; routes\.chain\.allowPrivateAddresses allows it/;

/**
 * An ER on loopback that records what reaches it: JSON-RPC over HTTP at its URL's port, and
 * over a websocket on the next port, where the relay looks for it. Tests look for their own
 * account or signature in it: a stray connection (another router following validator A's
 * registry) proves nothing either way.
 */
class LoopbackEr {
  /** Every JSON-RPC message received, over HTTP or the websocket, as sent. */
  readonly received: string[] = [];
  readonly url: string;
  private readonly server: http.Server;
  private readonly sockets: WebSocketServer;

  private constructor(port: number) {
    this.url = `http://127.0.0.1:${port}`;
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.received.push(text);
        const call = JSON.parse(text) as { id: unknown; method: string };
        res.writeHead(200, { 'content-type': 'application/json' });
        const result = call.method === 'getHealth' ? '"ok"' : '{"context":{"slot":1},"value":[null]}';
        res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":${result}}`);
      });
    });
    this.server.listen(port, '127.0.0.1');
    this.sockets = new WebSocketServer({ port: port + 1, host: '127.0.0.1' });
    this.sockets.on('connection', (socket) =>
      socket.on('message', (data: Buffer) => this.received.push(data.toString('utf8'))),
    );
  }

  static async start(): Promise<LoopbackEr> {
    const er = new LoopbackEr(await freePortPair());
    await Promise.all([once(er.server, 'listening'), once(er.sockets, 'listening')]);
    return er;
  }

  /** The messages that name `text` (an account, a signature) and call `method`. */
  asked(method: string, text: string): string[] {
    return this.received.filter((m) => m.includes(`"method":"${method}"`) && m.includes(text));
  }

  async close(): Promise<void> {
    for (const client of this.sockets.clients) client.terminate();
    await new Promise((resolve) => this.sockets.close(resolve));
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe("routes.chain: a registry record's URL into the operator's network", function () {
  this.timeout(60_000);
  let er: LoopbackEr;
  let signer: KeyPairSigner;
  let chain: DelegationChain;
  let tmp: TempDir;
  let served: SocketServed | undefined;
  let logs: ReturnType<typeof memoryLog>;

  before(async function () {
    await skipUnlessValidatorA(this, CHAIN_URL);
    er = await LoopbackEr.start();
    signer = await fundedIdentity();
    await register(signer, { addr: er.url });
  });
  after(async () => {
    if (signer) await unregister(signer);
    await er?.close();
  });
  beforeEach(async () => {
    chain = await DelegationChain.start(undefined);
    tmp = tempDir();
    logs = memoryLog();
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
    await chain.close();
    tmp.remove();
  });

  /** The server's plugins from a config following validator A's registry, the delegation records on the stand-in. */
  async function start(allowPrivateAddresses: boolean): Promise<ServerPlugins> {
    const file = tmp.file('config.json');
    writeFileSync(
      file,
      JSON.stringify({
        routes: { allowInsecure: true, chain: { url: CHAIN_URL, allowPrivateAddresses } },
        delegation: {
          baseChain: { url: chain.url, wsUrl: chain.wsUrl },
          identity: { allow: [signer.address] },
        },
        statuses: { store: false },
        statusesFromRoutes: true,
      }),
    );
    const { config } = await loadConfig({ file });
    const watch = new UpstreamWatch(
      { urls: [], freshMs: 1000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      logs.log,
    );
    const plugins = buildPlugins(config, undefined, watch);
    served = await serveSockets({
      plugins: [plugins.routes, plugins.statuses, plugins.delegation!],
      logger: logs.log,
    });
    await waitFor(
      () => plugins.routes.registry.available().some((e) => e.identity === signer.address),
      'the record listed',
    );
    return plugins;
  }

  async function post(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
    const res = await fetch(served!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as { result?: unknown; error?: unknown };
  }

  /** accountSubscribe of `account` over a client websocket: the relay subscribes it on its ER too. */
  async function subscribe(account: string): Promise<TestSocket> {
    const socket = await TestSocket.open(served!.ws);
    const answer = await socket.call('accountSubscribe', [account, { encoding: 'base64' }]);
    expect(answer.result).to.be.a('number');
    return socket;
  }

  it('without allowPrivateAddresses: a call to the ER is -32071 (the log says why), its websocket is refused, statusesFromRoutes asks it nothing; it receives nothing', async () => {
    await start(false);
    const account = newIdentity();
    const signature = randomSignature();
    await chain.delegate(account, signer.address);
    const { error } = await post('getAccountInfo', [account, { encoding: 'base64' }]);
    // -32071 in data.code (the Solana clients' fallback code on the wire).
    const { data } = error as { data: Record<string, unknown> };
    expect(data).to.deep.equal({ code: -32071, upstream: `er:${signer.address}`, kind: 'unreachable' });
    // Why goes to the operator's log, never to the client (nor to whoever registered the record).
    const failed = logs.lines.find(
      (l) => l.msg === 'upstream call failed' && l.upstream === `er:${signer.address}`,
    );
    expect(String(failed?.detail)).to.match(REFUSED);

    const { result } = await post('getSignatureStatuses', [[signature]]);
    expect((result as { value: unknown[] }).value).to.deep.equal([null]);

    const socket = await subscribe(account);
    const refused = await waitFor(
      () => logs.lines.find((l) => String(l.msg).startsWith('upstream websocket refused')),
      'the ER websocket refused',
    );
    expect(refused).to.include({ upstream: `er:${signer.address}` });
    expect(String(refused.err)).to.match(REFUSED);
    socket.ws.terminate();

    expect(er.asked('getAccountInfo', account)).to.deep.equal([]);
    expect(er.asked('getSignatureStatuses', signature)).to.deep.equal([]);
    expect(er.asked('accountSubscribe', account)).to.deep.equal([]);
  });

  it('with allowPrivateAddresses: the ER is called, its websocket relays the subscription, and statusesFromRoutes asks it', async () => {
    await start(true);
    const account = newIdentity();
    const signature = randomSignature();
    await chain.delegate(account, signer.address);
    const { error } = await post('getAccountInfo', [account, { encoding: 'base64' }]);
    expect(error).to.equal(undefined);
    expect(er.asked('getAccountInfo', account)).to.have.length(1);

    await post('getSignatureStatuses', [[signature]]);
    expect(er.asked('getSignatureStatuses', signature)).to.have.length(1);

    const socket = await subscribe(account);
    await waitFor(
      () => er.asked('accountSubscribe', account).length > 0,
      'the subscription relayed to the ER',
    );
    socket.ws.terminate();
  });
});
