import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignatureStatus } from '@rollup-router/signature-statuses';

/** How the stand-in answers its next requests. */
export type StandInBehaviour =
  | { readonly kind: 'normal' }
  /** Answers only once `release()` of the returned gate is called (or the stand-in closes). */
  | { readonly kind: 'held' }
  /** Never answers (until closed): the client must time out. */
  | { readonly kind: 'hang' }
  | { readonly kind: 'http-500' }
  | { readonly kind: 'garbage' }
  | { readonly kind: 'wrong-length' }
  /** A well-formed JSON-RPC answer whose result breaks the schema (a status missing keys). */
  | { readonly kind: 'schema-invalid' }
  /** Destroys the connection as soon as a request arrives. */
  | { readonly kind: 'reset' }
  | { readonly kind: 'rpc-error'; readonly error: { code: number; message: string; data?: unknown } }
  /** A well-formed answer over `bytes` long (its apiVersion padded), with or without a content-length. */
  | { readonly kind: 'huge'; readonly bytes: number; readonly chunked: boolean };

export interface RecordedRequest {
  readonly signatures: readonly string[];
  readonly config: unknown;
}

/**
 * A Solana JSON-RPC node on loopback that answers getSignatureStatuses as the captured
 * validator does: members `jsonrpc, result, id`, result keys in alphabetical order, a
 * trailing newline, `null` for unknown signatures. It can be told to misbehave.
 */
export class SolanaStandIn {
  readonly statuses = new Map<string, SignatureStatus>();
  readonly requests: RecordedRequest[] = [];
  behaviour: StandInBehaviour = { kind: 'normal' };
  slot: number;
  apiVersion = '2.2.1';
  /** Write status members in the Magic Router's order (slot first) instead of the validator's. */
  routerKeyOrder = false;
  /** `user:password`: when set, a request without them as basic auth gets 401, as behind a provider's gateway. */
  basicAuth: string | undefined;
  /** TCP connections accepted (a new pool, or one re-opened after eviction, opens new ones). */
  connections = 0;
  /** getHealth calls answered (the routes plugin's probes). */
  healthChecks = 0;
  private readonly held: (() => void)[] = [];
  private released = false;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    slot: number,
  ) {
    this.slot = slot;
  }

  static async start(slot = 1000): Promise<SolanaStandIn> {
    const server = http.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const standIn = new SolanaStandIn(server, `http://127.0.0.1:${port}`, slot);
    server.on('request', (req, res) => void standIn.answer(req, res));
    server.on('connection', () => (standIn.connections += 1));
    return standIn;
  }

  /** Requests received that were getSignatureStatuses calls, retries included. */
  get requestCount(): number {
    return this.requests.length;
  }

  /** How many requests asked about `signature`. */
  askedAbout(signature: string): number {
    return this.requests.filter((r) => r.signatures.includes(signature)).length;
  }

  /** Holds every answer from now on until the returned function is called. */
  hold(): () => void {
    this.behaviour = { kind: 'held' };
    this.released = false;
    return () => {
      this.released = true;
      this.behaviour = { kind: 'normal' };
      this.held.splice(0).forEach((go) => go());
    };
  }

  async close(): Promise<void> {
    this.held.splice(0).forEach((go) => go());
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id: unknown;
      method: string;
      params: [string[], unknown?];
    };
    if (this.basicAuth !== undefined && req.headers.authorization !== basic(this.basicAuth)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="rpc"', 'content-length': 0 });
      return void res.end();
    }
    if (call.method === 'getHealth') {
      this.healthChecks += 1;
      return this.send(res, 200, `{"jsonrpc":"2.0","result":"ok","id":${JSON.stringify(call.id)}}\n`);
    }
    if (call.method !== 'getSignatureStatuses') {
      return this.send(
        res,
        200,
        `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":${JSON.stringify(call.id)}}\n`,
      );
    }
    const [signatures, config] = call.params;
    this.requests.push({ signatures, config });
    const behaviour = this.behaviour;
    switch (behaviour.kind) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'held':
        if (!this.released) await new Promise<void>((go) => this.held.push(go));
        break;
      case 'http-500':
        return this.send(res, 500, 'Internal Server Error\n', 'text/plain');
      case 'garbage':
        return this.send(res, 200, '{"jsonrpc":"2.0","result":{"context":');
      case 'rpc-error':
        return this.send(
          res,
          200,
          `{"jsonrpc":"2.0","error":${JSON.stringify(behaviour.error)},"id":${JSON.stringify(call.id)}}\n`,
        );
      case 'huge':
        return this.sendHuge(res, call.id, signatures.length, behaviour);
      default:
        break;
    }
    let value: unknown[] = signatures.map((s) => {
      const status = this.statuses.get(s);
      return status && this.routerKeyOrder ? routerOrder(status) : (status ?? null);
    });
    if (behaviour.kind === 'wrong-length') value = value.slice(1);
    if (behaviour.kind === 'schema-invalid') value = value.map(() => ({ slot: this.slot }));
    const result = { context: { apiVersion: this.apiVersion, slot: this.slot }, value };
    this.send(
      res,
      200,
      `{"jsonrpc":"2.0","result":${JSON.stringify(result)},"id":${JSON.stringify(call.id)}}\n`,
    );
  }

  /** A valid answer of `bytes` bytes or more: only its size is wrong. */
  private sendHuge(
    res: http.ServerResponse,
    id: unknown,
    count: number,
    { bytes, chunked }: { bytes: number; chunked: boolean },
  ): void {
    const result = {
      context: { apiVersion: 'x'.repeat(bytes), slot: this.slot },
      value: Array(count).fill(null),
    };
    const body = `{"jsonrpc":"2.0","result":${JSON.stringify(result)},"id":${JSON.stringify(id)}}\n`;
    if (!chunked) return this.send(res, 200, body);
    res.writeHead(200, { 'content-type': 'application/json' });
    // Written in pieces with no content-length: the client must count as it reads.
    for (let at = 0; at < body.length; at += 64 * 1024) res.write(body.slice(at, at + 64 * 1024));
    res.end();
  }

  private send(
    res: http.ServerResponse,
    status: number,
    body: string,
    type = 'application/json; charset=utf-8',
  ): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
}

const basic = (credentials: string): string => `Basic ${Buffer.from(credentials).toString('base64')}`;

/** The member order the Magic Router writes (captures/router.sigstatus-known-and-unknown.json). */
function routerOrder(s: SignatureStatus): Record<string, unknown> {
  return {
    slot: s.slot,
    confirmations: s.confirmations,
    status: s.status,
    err: s.err,
    confirmationStatus: s.confirmationStatus,
  };
}
