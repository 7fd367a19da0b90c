import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SignatureStatus } from '@rollup-router/signature-statuses';
import { listenOnReusablePort } from './reusable-port.js';

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

/**
 * How the node answers every method but getSignatureStatuses (the routes plugin's health
 * probes). `healthy` answers getHealth byte for byte like the captured validator
 * (captures/er-validator.getHealth.json); `unhealthy` is Agave's JSON-RPC error for a node
 * that is behind; `hang` never answers until the node goes down or closes.
 */
export type HealthBehaviour = 'healthy' | 'http-500' | 'unhealthy' | 'not-json' | 'hang';

export interface RecordedRequest {
  readonly signatures: readonly string[];
  readonly config: unknown;
}

/**
 * A Solana JSON-RPC node on loopback that answers getSignatureStatuses as the captured
 * validator does: members `jsonrpc, result, id`, result keys in alphabetical order, a
 * trailing newline, `null` for unknown signatures; and getHealth and getSlot for health
 * probes. It can be told to misbehave, and go down and come back on its port.
 */
export class SolanaStandIn {
  readonly requests: RecordedRequest[] = [];
  behaviour: StandInBehaviour = { kind: 'normal' };
  /** Delay before each getSignatureStatuses answer, in ms. */
  delayMs = 0;
  health: HealthBehaviour = 'healthy';
  /** The JSON-RPC method of every request received, in order; `(not JSON)` for a body that is not. */
  readonly methods: string[] = [];
  /** Requests received and not yet answered, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  /** Requests whose connection went away before they were answered (aborted probes). */
  abandoned = 0;
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
  private readonly hung = new Set<http.ServerResponse>();
  private server = http.createServer();
  private port = 0;

  private constructor(
    slot: number,
    /** Statuses it knows; anything else is null, as a validator answers. */
    readonly statuses: Map<string, SignatureStatus>,
  ) {
    this.slot = slot;
  }

  static async start(slot = 1000, statuses = new Map<string, SignatureStatus>()): Promise<SolanaStandIn> {
    const standIn = new SolanaStandIn(slot, statuses);
    await listenOnReusablePort((port) => standIn.listen(port));
    return standIn;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
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

  /** Stops listening and drops every connection, unanswered: the node is gone (connection refused). */
  async down(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.hung.clear();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  /** Listens again on the same port: the node is back. */
  async up(): Promise<void> {
    this.server = http.createServer();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    this.held.splice(0).forEach((go) => go());
    if (this.server.listening) await this.down();
  }

  private async listen(port: number): Promise<void> {
    if (!this.server.listening) this.server = http.createServer();
    this.server.on('request', (req, res) => void this.answer(req, res));
    this.server.on('connection', () => (this.connections += 1));
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.track(res);
    const call = parseCall(Buffer.concat(chunks).toString('utf8'));
    this.methods.push(call?.method ?? '(not JSON)');
    if (this.basicAuth !== undefined && req.headers.authorization !== basic(this.basicAuth)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="rpc"', 'content-length': 0 });
      return void res.end();
    }
    if (call?.method !== 'getSignatureStatuses') return this.answerProbe(res, call);
    const [signatures, config] = call.params;
    this.requests.push({ signatures, config });
    // Unreferenced: a stand-in told to be slow never keeps the test process alive.
    if (this.delayMs > 0) await sleep(this.delayMs, undefined, { ref: false });
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

  private track(res: http.ServerResponse): void {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => {
      this.inFlight -= 1;
      if (!res.writableFinished) this.abandoned += 1;
    });
  }

  /** getHealth, getSlot and any other method, as `health` says. */
  private answerProbe(res: http.ServerResponse, call: JsonRpcCall | undefined): void {
    const id = JSON.stringify(call?.id ?? null);
    if (call?.method === 'getHealth') this.healthChecks += 1;
    switch (this.health) {
      case 'hang':
        this.hung.add(res);
        return;
      case 'http-500':
        return this.send(res, 500, 'Internal Server Error\n', 'text/plain');
      case 'not-json':
        return this.send(res, 200, '<html>maintenance</html>');
      case 'unhealthy':
        return this.send(
          res,
          200,
          `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is unhealthy","data":{}},"id":${id}}\n`,
        );
      default:
        break;
    }
    if (call?.method === 'getHealth')
      return this.send(res, 200, `{"jsonrpc":"2.0","result":"ok","id":${id}}\n`);
    if (call?.method === 'getSlot')
      return this.send(res, 200, `{"jsonrpc":"2.0","result":${this.slot},"id":${id}}\n`);
    this.send(
      res,
      200,
      `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":${id}}\n`,
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

interface JsonRpcCall {
  readonly id: unknown;
  readonly method: string;
  readonly params: [string[], unknown?];
}

function parseCall(text: string): JsonRpcCall | undefined {
  try {
    return JSON.parse(text) as JsonRpcCall;
  } catch {
    return undefined;
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
