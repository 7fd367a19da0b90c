import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket, WebSocketServer } from 'ws';
import { refusalData, type Payer, type Verdict } from '../admission.js';
import { errorJson } from '../envelope.js';
import { RpcError } from '../errors.js';
import { HttpRefusal, type HttpRefusalName } from '../http-status.js';
import { mountPrefix } from '../mount-path.js';
import { refusalReply } from '../refusal-reply.js';
import { requestIdOf } from '../request-id-header.js';
import { loadOptionalPackage } from '../optional-package.js';
import type { Rpc } from '../rpc.js';
import { fixedHeaders, rawReply, type FixedHeaders } from './node-exchange.js';
import { CloseCode, SocketConnection } from './websocket-connection.js';

export interface WebSocketOptions<C = unknown> {
  /** The router's mount path: the socket is served at its root endpoint (`<path>/`). Default '/'. */
  readonly path?: string;
  /**
   * Makes `ctx.host` for every call of a connection, once, from its upgrade request
   * (headers, query string, cookies), before the connection opens; a throw refuses the
   * upgrade with the thrown RpcError (HTTP 403). Default: the service's own `context`.
   */
  readonly context?: (req: IncomingMessage) => C | Promise<C>;
  /**
   * Headers a refused upgrade's reply carries besides its own (security headers, say), as
   * createNodeListener's `headers` for HTTP replies: give both the same, and a refusal
   * reads the same over either.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * JSON-RPC over WebSocket beside HTTP, on `ws`: upgrades at the mount's root endpoint
 * are checked with the service's own access rules (allowed origins, API keys) and its
 * connection limits, then every message is dispatched by `rpc.dispatch`.
 */
export class WebSocketTransport<C = unknown> {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<SocketConnection<C>>();
  private readonly perClient = new Map<string, number>();
  private readonly mount: string;
  private readonly pinger: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private readonly context: ((req: IncomingMessage) => C | Promise<C>) | undefined;
  private readonly fixed: FixedHeaders;

  constructor(
    private readonly rpc: Rpc<C>,
    options: WebSocketOptions<NoInfer<C>> = {},
  ) {
    const service = rpc.context;
    this.context = options.context ?? (service && ((req) => service({ transport: 'websocket', req })));
    this.mount = mountPrefix(options.path);
    this.fixed = fixedHeaders(options.headers);
    const { maxMessageBytes, pingIntervalMs } = rpc.options.websocket;
    // An optional peer of core: only the WebSocket transport and client load it.
    const { WebSocketServer } = loadOptionalPackage<typeof import('ws')>(
      import.meta.url,
      'ws',
      'attachWebSocket is called',
    );
    // perMessageDeflate off: inflating is where zip bombs and CPU go; Solana clients do not need it.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes, perMessageDeflate: false });
    if (pingIntervalMs > 0) this.pinger = setInterval(() => this.ping(), pingIntervalMs).unref();
  }

  /** Open sockets. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Serves upgrades of `server` (call it for each listener: the port and port + 1 share one transport). */
  attach(server: Server): this {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.handleUpgrade(req, socket, head, server.listenerCount('upgrade') > 1),
    );
    return this;
  }

  /** Takes one upgrade request; `shared` leaves paths that are not ours to the server's other upgrade listeners. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, shared = false): void {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://upgrade');
    const refuse = (why: HttpRefusalName, data?: unknown): void => {
      const { status, code } = HttpRefusal[why];
      this.refuse(req, socket, status, RpcError.of(code, data), why);
    };
    if (!this.isRoot(url.pathname)) {
      if (!shared) refuse('NO_SUCH_PATH', 'no WebSocket endpoint at this path');
      return;
    }
    if (this.closing !== undefined) return refuse('SHUTTING_DOWN');
    const { admission, clientAddress } = this.rpc.access;
    const clientKey = clientAddress(req.socket.remoteAddress, header(req, 'x-forwarded-for'));
    // The upgrade is a request like any other: admitted (and charged) by the service's one step.
    const credentials = { authorization: header(req, 'authorization'), query: url.search.replace(/^\?/, '') };
    const key = admission.keyOf(credentials);
    const verdict = admission.admitRequest(clientKey, key);
    const decide = (admitted: Verdict): void => {
      if (socket.destroyed) return;
      if (admitted !== undefined) return refuse(admitted.why, refusalData(admitted));
      const why = this.refusalOf(req, clientKey);
      if (why !== undefined) return refuse(why);
      const client = { address: clientKey, key };
      if (this.context === undefined) return this.upgrade(req, socket, head, client, undefined as C);
      // The host's context, once per connection, from the upgrade request alone.
      const refuseUpgrade = (err: unknown): void => {
        if (!(err instanceof RpcError)) this.rpc.logger.error({ err }, 'websocket context failed');
        const error = err instanceof RpcError ? err : RpcError.of(HttpRefusal.UNCAUGHT.code);
        if (!socket.destroyed) this.refuse(req, socket, err instanceof RpcError ? 403 : 500, error);
      };
      let made: C | Promise<C>;
      try {
        made = this.context(req);
      } catch (err) {
        return refuseUpgrade(err);
      }
      if (made instanceof Promise)
        made.then((host) => this.upgrade(req, socket, head, client, host), refuseUpgrade);
      else this.upgrade(req, socket, head, client, made);
    };
    if (verdict instanceof Promise) verdict.then(decide).catch(() => socket.destroy());
    else decide(verdict);
  }

  /**
   * Answers a refused upgrade with its HTTP status and a JSON-RPC error body, under the head
   * an HTTP refusal has (refusalReply, and the host's fixed headers), then closes.
   */
  private refuse(
    req: IncomingMessage,
    socket: Duplex,
    status: number,
    error: RpcError,
    why?: HttpRefusalName,
  ): void {
    const headers = { 'x-request-id': requestIdOf(header(req, 'x-request-id')) };
    const body = errorJson('null', error.toJSON(), this.rpc.wireErrors);
    socket.end(rawReply(refusalReply(status, headers, body, why, error.data), this.fixed));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, client: Payer, host: C): void {
    if (socket.destroyed) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, req, client, host));
  }

  /**
   * Graceful stop: no new sockets; the calls under way are answered (up to `graceMs`, the
   * host's shutdown grace: the reference server's is `shutdown.graceMs`), then every socket
   * is closed with 1001 (going away). Calling it again returns the same promise.
   */
  close(graceMs: number): Promise<void> {
    // No default of its own: the host's grace is the one (a JavaScript caller that names
    // none would otherwise cut every call short).
    if (!Number.isFinite(graceMs) || graceMs < 0)
      throw new TypeError(`close(graceMs): graceMs must be a number of milliseconds, got ${String(graceMs)}`);
    return (this.closing ??= this.closeAll(graceMs));
  }

  private async closeAll(graceMs: number): Promise<void> {
    clearInterval(this.pinger);
    // A socket whose client left has no answer to wait for: its calls end it no sooner.
    const settled = [...this.connections].map((c) => Promise.race([c.idle(), this.closedOf(c)]));
    await Promise.race([Promise.all(settled), sleep(graceMs, undefined, { ref: false })]);
    // Only sockets still open: one that closed meanwhile emits no second 'close'.
    const open = [...this.connections];
    for (const c of open) c.close(CloseCode.GOING_AWAY, 'server shutting down');
    await Promise.all(open.map((c) => this.closedOf(c)));
    await new Promise<void>((done) => this.wss.close(() => done()));
  }

  /** Resolves once `c`'s socket has closed (at once when it already has). */
  private closedOf(c: SocketConnection<C>): Promise<void> {
    if (!this.connections.has(c)) return Promise.resolve();
    return new Promise((done) => c.ws.once('close', () => done()));
  }

  private isRoot(pathname: string): boolean {
    return pathname === `${this.mount}/` || (this.mount !== '' && pathname === this.mount);
  }

  /**
   * Why an admitted upgrade (drain, rate limit, API key: admission.ts) is still refused:
   * closing meanwhile, the page's origin, then the connection limits.
   */
  private refusalOf(req: IncomingMessage, clientKey: string): HttpRefusalName | undefined {
    if (this.closing !== undefined) return 'SHUTTING_DOWN';
    if (!this.rpc.access.cors.allowsSocket(header(req, 'origin'), header(req, 'host'))) {
      return 'ORIGIN_NOT_ALLOWED';
    }
    const limits = this.rpc.options.websocket;
    if (this.connections.size >= limits.maxConnections) return 'TOO_MANY_CONNECTIONS';
    if ((this.perClient.get(clientKey) ?? 0) >= limits.maxConnectionsPerIp) {
      return 'TOO_MANY_CONNECTIONS_FROM_CLIENT';
    }
    return undefined;
  }

  private open(ws: WebSocket, req: IncomingMessage, { address: clientKey, key }: Payer, host: C): void {
    const id = randomUUID();
    const log = this.rpc.logger;
    const connection = new SocketConnection(
      ws,
      req,
      clientKey,
      id,
      this.rpc,
      this.rpc.options.websocket,
      log,
      host,
      key,
    );
    this.connections.add(connection);
    this.perClient.set(clientKey, (this.perClient.get(clientKey) ?? 0) + 1);
    ws.once('close', (code) => {
      this.connections.delete(connection);
      const left = (this.perClient.get(clientKey) ?? 1) - 1;
      if (left === 0) this.perClient.delete(clientKey);
      else this.perClient.set(clientKey, left);
      connection.closed(code);
    });
    log.debug({ conn: id, client: clientKey }, 'websocket opened');
    // Upgrades that raced past the checks while the last slots filled, or while closing.
    const limits = this.rpc.options.websocket;
    if (this.closing !== undefined) connection.close(CloseCode.GOING_AWAY, 'server shutting down');
    else if (
      this.connections.size > limits.maxConnections ||
      this.perClient.get(clientKey)! > limits.maxConnectionsPerIp
    ) {
      connection.close(CloseCode.TRY_AGAIN_LATER, 'too many connections');
    }
  }

  /** Keep-alive: a peer that showed no life since the last ping is dead and cut off. */
  private ping(): void {
    for (const c of this.connections) {
      if (!c.alive) {
        this.rpc.logger.debug({ client: c.clientKey }, 'closing a dead websocket peer (no pong)');
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      // A socket already closing gets no ping (ws throws on it); its 'close' is on the way.
      if (c.ws.readyState === c.ws.OPEN) c.ws.ping();
    }
  }
}

/** Serves JSON-RPC over WebSocket on `server` (a node:http server, an Express app's included) at the mount's root. */
export function attachWebSocket<C>(
  server: Server,
  rpc: Rpc<C>,
  options: WebSocketOptions<NoInfer<C>> = {},
): WebSocketTransport<C> {
  return new WebSocketTransport(rpc, options).attach(server);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
