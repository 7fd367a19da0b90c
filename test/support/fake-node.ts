import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * How the stand-in node answers. `healthy` answers getHealth byte for byte like the
 * captured validator (peers/captures/er-validator.getHealth.json); `unhealthy` is
 * Agave's JSON-RPC error for a node that is behind; `hang` never answers until released.
 */
export type NodeBehaviour = 'healthy' | 'http-500' | 'unhealthy' | 'not-json' | 'hang';

const HEALTHY = '{"jsonrpc":"2.0","result":"ok","id":1}\n';
const UNHEALTHY =
  '{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is unhealthy","data":{}},"id":1}\n';

/** A tiny JSON-RPC server on an ephemeral loopback port, standing in for an ER node. */
export class FakeNode {
  behaviour: NodeBehaviour = 'healthy';
  /** Requests received, and the JSON-RPC methods they called. */
  requests = 0;
  readonly methods: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Requests whose connection went away before they were answered (aborted probes). */
  abandoned = 0;
  private readonly sockets = new Set<Socket>();
  private readonly held = new Set<ServerResponse>();
  private server: Server;

  private constructor(
    public port: number,
    server: Server,
  ) {
    this.server = server;
  }

  static async start(behaviour: NodeBehaviour = 'healthy'): Promise<FakeNode> {
    const node = new FakeNode(0, createServer());
    node.behaviour = behaviour;
    await node.listen(0);
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Answers every request held by `hang` as healthy. */
  release(): void {
    for (const res of this.held) this.answer(res, 200, HEALTHY);
    this.held.clear();
  }

  /** Stops listening and drops every connection: the node is gone (connection refused). */
  async down(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.held.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  /** Listens again on the same port: the node is back. */
  async up(): Promise<void> {
    this.server = createServer();
    await this.listen(this.port);
  }

  close(): Promise<void> {
    return this.server.listening ? this.down() : Promise.resolve();
  }

  private async listen(port: number): Promise<void> {
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('request', (req, res) => this.onRequest(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.requests += 1;
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.on('close', () => {
        this.inFlight -= 1;
        if (!res.writableFinished) this.abandoned += 1;
      });
      try {
        this.methods.push(
          String((JSON.parse(Buffer.concat(chunks).toString()) as { method?: unknown }).method),
        );
      } catch {
        this.methods.push('(not JSON)');
      }
      switch (this.behaviour) {
        case 'healthy':
          return this.answer(res, 200, HEALTHY);
        case 'unhealthy':
          return this.answer(res, 200, UNHEALTHY);
        case 'http-500':
          return this.answer(res, 500, 'Internal Server Error');
        case 'not-json':
          return this.answer(res, 200, '<html>maintenance</html>');
        case 'hang':
          this.held.add(res);
          return;
      }
    });
  }

  private answer(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }
}
