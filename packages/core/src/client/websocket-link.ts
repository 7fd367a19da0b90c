import type WebSocket from 'ws';
import { loadOptionalPackage } from '../optional-package.js';
import type { JsonrpcResponse } from '../generated/schemas.js';
import { RpcNoAnswerError, type WireErrorsName } from './errors.js';
import { resultOf, settle } from './http-link.js';
import type { CallOptions, Link, LinkCall, Settled, SubscriptionListener } from './link.js';

type Options = Required<Pick<CallOptions, 'timeoutMs'>> & CallOptions;

/** A message awaited by id: a call's answer, or a batch's (keyed by its first id). */
interface Waiter {
  readonly label: string;
  readonly done: (message: unknown) => void;
  readonly fail: (error: Error) => void;
}

/**
 * Calls over one `ws` connection, opened on first use: answers matched by id,
 * notifications routed by subscription id. The connection's context is made by the
 * server from the upgrade request: `headers` (a bearer token) travel with it.
 */
export class WebSocketLink implements Link {
  private socket: Promise<WebSocket> | undefined;
  private readonly waiting = new Map<number, Waiter>();
  private readonly subscriptions = new Map<number, SubscriptionListener>();
  /** Set by close(): the subscriptions it ends are ended by the client, not lost. */
  private closing = false;
  /**
   * Notifications for an id not yet known: the server sends the subscribe answer and a
   * notification due at once in one burst, handled before the answer's promise resumes
   * the subscriber. Kept (a few) until the subscriber registers.
   */
  private readonly early = new Map<number, unknown[]>();
  private nextId = 1;

  /** ws, an optional peer of core: loaded when a client is made for a ws(s):// URL. */
  private readonly WebSocket: typeof WebSocket;

  constructor(
    private readonly url: string,
    private readonly headers: Readonly<Record<string, string>> | undefined,
    private readonly wireErrors: WireErrorsName,
  ) {
    this.WebSocket = loadOptionalPackage<typeof WebSocket>(
      import.meta.url,
      'ws',
      'createClient is given a ws(s):// URL',
    );
  }

  call({ method, params }: LinkCall, options: Options): Promise<unknown> {
    const id = this.nextId++;
    return this.exchange(method, [id], JSON.stringify(request(method, params, id)), options).then((message) =>
      resultOf(method, message as JsonrpcResponse, this.wireErrors),
    );
  }

  async batch(calls: readonly LinkCall[], options: Options): Promise<Settled<unknown>[]> {
    const sent = calls.map((c) => ({ method: c.method, id: this.nextId++ }));
    const body = JSON.stringify(calls.map((c, i) => request(c.method, c.params, sent[i]!.id)));
    const label = `batch of ${calls.length}`;
    const message = await this.exchange(
      label,
      sent.map((s) => s.id),
      body,
      options,
    );
    if (!Array.isArray(message)) resultOf(label, message as JsonrpcResponse, this.wireErrors); // refused whole: throws
    return settle(sent, message as JsonrpcResponse[], this.wireErrors);
  }

  async subscribe(call: LinkCall, options: Options, listener: SubscriptionListener): Promise<number> {
    const id = (await this.call(call, options)) as number;
    this.subscriptions.set(id, listener);
    const early = this.early.get(id);
    this.early.delete(id);
    for (const result of early ?? []) listener.notify(result);
    return id;
  }

  forget(subscription: number): void {
    this.subscriptions.delete(subscription);
  }

  async close(): Promise<void> {
    const socket = await this.socket?.catch(() => undefined);
    if (socket === undefined || socket.readyState === socket.CLOSED) return;
    this.closing = true;
    await new Promise((closed) => {
      socket.once('close', closed);
      socket.close();
    });
  }

  private open(): Promise<WebSocket> {
    return (this.socket ??= new Promise((resolve, reject) => {
      const ws = new this.WebSocket(this.url, { headers: { ...this.headers } });
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          this.socket = undefined;
          reject(refusal(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), this.wireErrors));
        });
      });
      ws.on('error', (err) => {
        this.socket = undefined;
        reject(new RpcNoAnswerError('connect', 'unreachable', err.message));
      });
      ws.on('message', (data: Buffer) => this.receive(data.toString('utf8')));
      ws.once('close', (code, reason) => {
        this.socket = undefined;
        const why = reason.length > 0 ? `${code} ${reason.toString('utf8')}` : `${code}`;
        const gone = new RpcNoAnswerError('connection', 'closed', `socket closed (${why})`);
        for (const waiter of new Set(this.waiting.values())) waiter.fail(gone);
        this.waiting.clear();
        const lost = this.closing ? undefined : gone;
        this.closing = false;
        const listeners = [...this.subscriptions.values()];
        this.subscriptions.clear();
        this.early.clear();
        for (const listener of listeners) listener.lost(lost);
      });
    }));
  }

  private async exchange(label: string, ids: number[], body: string, options: Options): Promise<unknown> {
    const ws = await this.open();
    return new Promise((resolve, reject) => {
      const end = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', abort);
        for (const id of ids) this.waiting.delete(id);
      };
      const timer = setTimeout(() => {
        end();
        reject(new RpcNoAnswerError(label, 'timeout', `no answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      const abort = (): void => {
        end();
        reject(new RpcNoAnswerError(label, 'aborted', 'cancelled'));
      };
      if (options.signal?.aborted) return abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      // A batch's answer is found by any of its ids (the server may leave notifications out).
      const waiter: Waiter = {
        label,
        done: (message) => {
          end();
          resolve(message);
        },
        fail: (error) => {
          end();
          reject(error);
        },
      };
      for (const id of ids) this.waiting.set(id, waiter);
      ws.send(body);
    });
  }

  private keepEarly(subscription: number, result: unknown): void {
    const kept = this.early.get(subscription);
    if (kept !== undefined) {
      if (kept.length < MAX_EARLY) kept.push(result);
      return;
    }
    // Ids of subscriptions this client never registers (one unsubscribed) are dropped oldest first.
    if (this.early.size >= MAX_EARLY) this.early.delete(this.early.keys().next().value!);
    this.early.set(subscription, [result]);
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const first = Array.isArray(message) ? (message[0] as unknown) : message;
    const { id, method, params } = (first ?? {}) as {
      id?: unknown;
      method?: unknown;
      params?: { subscription?: unknown; result?: unknown };
    };
    if (typeof method === 'string' && typeof params?.subscription === 'number') {
      const listener = this.subscriptions.get(params.subscription);
      if (listener !== undefined) listener.notify(params.result);
      else this.keepEarly(params.subscription, params.result);
      return;
    }
    if (typeof id === 'number') this.waiting.get(id)?.done(message);
    // An answer with id null refuses a whole message (rate limit): it goes to the oldest waiter.
    else if (id === null) this.waiting.values().next().value?.done(message);
  }
}

const MAX_EARLY = 64;

function request(method: string, params: unknown, id: number): object {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** A refused upgrade: its JSON-RPC error when the body holds one. */
function refusal(status: number, body: string, wireErrors: WireErrorsName): Error {
  try {
    resultOf('connect', JSON.parse(body) as JsonrpcResponse, wireErrors);
  } catch (err) {
    if (err instanceof Error && err.name === 'RpcCallError') return err;
  }
  return new RpcNoAnswerError('connect', 'unreachable', `upgrade refused with HTTP ${status}`);
}
