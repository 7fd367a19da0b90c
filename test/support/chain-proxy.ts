// A real HTTP + WebSocket server on loopback in front of validator A, on one port.
// JSON-RPC posts are forwarded to A's HTTP port and websocket upgrades to A's pubsub
// port, frame by frame, so the client talks to the real validator. It is there for
// what A itself cannot be made to do: ask for Basic credentials (as a provider's gateway
// does), refuse one record's accountSubscribe while answering every other, and hold the
// answer of one getProgramAccounts. It records every request, so a test can count them.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { CHAIN_URL, CHAIN_WS } from './mdp.js';

/** One JSON-RPC request the proxy received: its method and its first parameter. */
export interface ProxiedCall {
  readonly method: string;
  readonly first: unknown;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
}

export class ChainProxy {
  /** `user:password`: when set, a request or upgrade without them as Basic auth gets 401. */
  basicAuth: string | undefined;
  /** `[name, value]`: when set, an HTTP request without this header (a provider's API key) gets 401. */
  requiredHeader: readonly [string, string] | undefined;
  /** Answers a websocket request with this error instead of forwarding it, when it returns one. */
  refuseWs: ((call: ProxiedCall) => JsonRpcErrorObject | undefined) | undefined;
  /** Forwards an HTTP request at once but holds its answer until the returned promise settles. */
  holdHttp: ((call: ProxiedCall) => Promise<void> | undefined) | undefined;
  /**
   * Answers an HTTP request itself, A never asked, when it returns something: a status with an
   * empty body (a gateway's 503 or 429 before any JSON-RPC), or `reset` (the connection dropped).
   */
  failHttp: ((call: ProxiedCall) => { readonly status: number } | 'reset' | undefined) | undefined;
  /** getSlot answers this many slots behind A's (a provider that lags). */
  slotLag = 0;
  readonly httpCalls: ProxiedCall[] = [];
  /** The method of every HTTP request answered, in the order the answers were sent. */
  readonly httpAnswered: string[] = [];
  readonly wsCalls: ProxiedCall[] = [];
  /** Requests and upgrades answered 401. */
  unauthorized = 0;
  /** Authorization headers seen (to check what the client sent). */
  readonly authorizations: (string | undefined)[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly wss = new WebSocketServer({ noServer: true });

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ChainProxy> {
    const server = http.createServer();
    const proxy = new ChainProxy(server);
    server.on('connection', (s) => {
      proxy.sockets.add(s);
      s.on('close', () => proxy.sockets.delete(s));
    });
    server.on('request', (req, res) => void proxy.answer(req, res));
    server.on('upgrade', (req, socket: Socket, head) => proxy.upgrade(req, socket, head));
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The HTTP URL, with `user:password@` when given. */
  url(credentials = ''): string {
    return `http://${credentials && `${credentials}@`}127.0.0.1:${this.port}`;
  }

  /** The websocket URL (the same port), with `user:password@` when given. */
  wsUrl(credentials = ''): string {
    return `ws://${credentials && `${credentials}@`}127.0.0.1:${this.port}`;
  }

  /** Websocket requests of `method`, with first parameter `first` when given. */
  wsCount(method: string, first?: unknown): number {
    return this.wsCalls.filter((c) => c.method === method && (first === undefined || c.first === first))
      .length;
  }

  httpCount(method: string): number {
    return this.httpCalls.filter((c) => c.method === method).length;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private authorized(req: http.IncomingMessage): boolean {
    this.authorizations.push(req.headers.authorization);
    if (this.requiredHeader !== undefined && req.headers[this.requiredHeader[0]] !== this.requiredHeader[1]) {
      this.unauthorized += 1;
      return false;
    }
    if (this.basicAuth === undefined) return true;
    const ok = req.headers.authorization === `Basic ${Buffer.from(this.basicAuth).toString('base64')}`;
    if (!ok) this.unauthorized += 1;
    return ok;
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!this.authorized(req)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="rpc"', 'content-length': 0 });
      return void res.end();
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const call = callOf(body);
    if (call) this.httpCalls.push(call);
    const failure = call && this.failHttp?.(call);
    if (failure === 'reset') return void res.socket?.destroy();
    if (failure !== undefined) {
      res.writeHead(failure.status, { 'content-length': 0 });
      return void res.end();
    }
    const upstream = await fetch(CHAIN_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }).catch(() => undefined);
    const text = upstream ? this.lagging(call, await upstream.text()) : '';
    const hold = call && this.holdHttp?.(call);
    if (hold) await hold.catch(() => undefined);
    if (!upstream) return void res.socket?.destroy();
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(text);
    if (call) this.httpAnswered.push(call.method);
  }

  private lagging(call: ProxiedCall | undefined, text: string): string {
    if (this.slotLag === 0 || call?.method !== 'getSlot') return text;
    const reply = JSON.parse(text) as { result?: unknown };
    if (typeof reply.result !== 'number') return text;
    return JSON.stringify({ ...reply, result: reply.result - this.slotLag });
  }

  private upgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    if (!this.authorized(req)) {
      socket.end(
        'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm="rpc"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (client) => this.relay(client));
  }

  /** Frames both ways between the client and A's pubsub port; requests go through `refuseWs`. */
  private relay(client: WebSocket): void {
    const upstream = new WebSocket(`ws://${CHAIN_WS.host}:${CHAIN_WS.port}`);
    const waiting: string[] = [];
    upstream.on('open', () => waiting.splice(0).forEach((m) => upstream.send(m)));
    upstream.on('message', (data) => client.send(data.toString()));
    upstream.on('close', () => client.terminate());
    upstream.on('error', () => client.terminate());
    client.on('close', () => upstream.terminate());
    client.on('error', () => upstream.terminate());
    client.on('message', (data) => {
      const text = data.toString();
      const call = callOf(text);
      if (call) this.wsCalls.push(call);
      const refusal = call && this.refuseWs?.(call);
      if (refusal) {
        const id = (JSON.parse(text) as { id?: unknown }).id ?? null;
        return client.send(JSON.stringify({ jsonrpc: '2.0', error: refusal, id }));
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else waiting.push(text);
    });
  }
}

function callOf(text: string): ProxiedCall | undefined {
  try {
    const { method, params } = JSON.parse(text) as { method?: unknown; params?: unknown };
    if (typeof method !== 'string') return undefined;
    return { method, first: Array.isArray(params) ? params[0] : undefined };
  } catch {
    return undefined;
  }
}
