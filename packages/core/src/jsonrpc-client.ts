import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';
import { EndpointPools } from './endpoint-pools.js';
import { jsonrpcResponseSchema, type JsonrpcResponse } from './generated/schemas.js';
import { compileSchema } from './validation.js';

export interface JsonRpcClientOptions {
  /** Connections per URL. Default: undici's (no bound). */
  readonly connections?: number;
  /** URLs with a pool kept open; the least recently used pool is closed beyond it. Default 256. */
  readonly maxPools?: number;
  /** A reply over this many bytes is not read further. Default 1 MiB. */
  readonly maxReplyBytes?: number;
  /** How long an idle keep-alive connection stays open. Default: undici's. */
  readonly keepAliveTimeoutMs?: number;
  /** Headers every request carries (an `authorization` here wins over URL credentials). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface JsonRpcCall {
  readonly method: string;
  /** Left out of the request when undefined. */
  readonly params?: unknown;
  /** The request id; default a new one per call. A success must carry it back. */
  readonly id?: number;
  readonly timeoutMs: number;
  /** The caller's own end (its deadline, or its callers gone): reported as `aborted`. */
  readonly signal?: AbortSignal;
  /**
   * Tries again after a connection error (refused, reset, closed), this many times. Never
   * after a timeout: the server may still be working on it. Default 0.
   */
  readonly connectionRetries?: number;
}

/** Why a reply is not one: too large, not JSON, not a JSON-RPC 2.0 response, or a success for another id. */
export type JsonRpcReplyProblem = 'too_large' | 'not_json' | 'not_jsonrpc' | 'wrong_id';

/** An HTTP answer came: a JSON-RPC response (success or error, any HTTP status), or a bad reply. */
export type JsonRpcAnswered =
  | { readonly kind: 'reply'; readonly httpStatus: number; readonly reply: JsonrpcResponse }
  | {
      readonly kind: 'bad_reply';
      readonly httpStatus: number;
      readonly problem: JsonRpcReplyProblem;
      readonly detail: string;
    };

/** No answer came: the timeout passed, the caller's signal fired, or no connection. */
export interface JsonRpcNoAnswer {
  readonly kind: 'timeout' | 'aborted' | 'unreachable';
  readonly detail: string;
}

/** Every outcome of a call. */
export type JsonRpcOutcome = JsonRpcAnswered | JsonRpcNoAnswer;

/** One call of a batch: its id is the caller's, to match its response. */
export interface JsonRpcBatchCall {
  readonly method: string;
  readonly params?: unknown;
  readonly id: number;
}

/**
 * Every outcome of a batch: its responses (in the server's order, matched by id), or
 * one response refusing the whole batch (rate limited, unauthorized: id null), or none.
 */
export type JsonRpcBatchOutcome =
  | { readonly kind: 'replies'; readonly httpStatus: number; readonly replies: readonly JsonrpcResponse[] }
  | JsonRpcAnswered
  | JsonRpcNoAnswer;

const DEFAULT_MAX_POOLS = 256;
const DEFAULT_MAX_REPLY_BYTES = 1 << 20;

/** Errors that mean the connection failed before an answer came: worth another try. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const isResponse = compileSchema<JsonrpcResponse>(jsonrpcResponseSchema);

/**
 * The project's one JSON-RPC 2.0 client over HTTP: keep-alive undici pools per URL,
 * credentials in the URL sent as Basic authorization, a timeout per call, a bounded reply,
 * and every reply checked against the JSON-RPC response schema. It never throws: every
 * failure is an outcome, and what an HTTP status or an error reply means is the caller's call.
 */
export class JsonRpcClient {
  private readonly pools: EndpointPools;
  private readonly maxReplyBytes: number;
  private readonly headers: Readonly<Record<string, string>>;
  private nextId = 1;

  constructor(options: JsonRpcClientOptions = {}) {
    this.pools = new EndpointPools({
      connections: options.connections,
      max: options.maxPools ?? DEFAULT_MAX_POOLS,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs,
    });
    this.maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    this.headers = { ...options.headers, 'content-type': 'application/json' };
  }

  call(url: string, call: JsonRpcCall): Promise<JsonRpcOutcome> {
    const id = call.id ?? this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: call.params });
    return this.attempts(url, body, call, (status, text) => interpret(status, text, id, this.maxReplyBytes));
  }

  /** Sends calls as one batch; never after a connection error (a batch is not retried). */
  batch(
    url: string,
    calls: readonly JsonRpcBatchCall[],
    options: Pick<JsonRpcCall, 'timeoutMs' | 'signal'>,
  ): Promise<JsonRpcBatchOutcome> {
    const body = JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', ...c })));
    return this.attempts(url, body, options, (status, text) =>
      interpretBatch(status, text, this.maxReplyBytes),
    );
  }

  private async attempts<T>(
    url: string,
    body: string,
    call: Pick<JsonRpcCall, 'timeoutMs' | 'signal' | 'connectionRetries'>,
    read: (httpStatus: number, text: string | undefined) => T,
  ): Promise<T | JsonRpcNoAnswer> {
    const retries = call.connectionRetries ?? 0;
    for (let attempt = 0; ; attempt++) {
      const end = new AttemptEnd(call.timeoutMs, call.signal);
      try {
        const { status, text } = await this.exchange(url, body, end);
        return read(status, text);
      } catch (err) {
        if (err instanceof NotHttp) return { kind: 'unreachable', detail: 'not an http(s) URL' };
        if (end.timedOut) return { kind: 'timeout', detail: `no answer within ${call.timeoutMs} ms` };
        if (call.signal?.aborted) return { kind: 'aborted', detail: 'cancelled' };
        if (attempt < retries && CONNECTION_ERRORS.has(errorCode(err))) continue;
        return failureOf(err);
      } finally {
        end.release();
      }
    }
  }

  /** Closes every connection, waiting for requests under way. */
  close(): Promise<void> {
    return this.pools.close();
  }

  private async exchange(
    url: string,
    body: string,
    signal: AttemptEnd,
  ): Promise<{ status: number; text: string | undefined }> {
    let endpoint;
    try {
      endpoint = this.pools.get(url);
    } catch {
      throw new NotHttp();
    }
    const headers: Record<string, string> = { ...this.headers };
    if (endpoint.authorization && headers.authorization === undefined) {
      headers.authorization = endpoint.authorization;
    }
    const response = await endpoint.pool.request({
      method: 'POST',
      path: endpoint.path,
      headers,
      body,
      signal,
    });
    return { status: response.statusCode, text: await readCapped(response, this.maxReplyBytes) };
  }
}

class NotHttp extends Error {}

/**
 * The end of one attempt: the caller's signal or the timeout, whichever fires first. A
 * timer and a listener, both released when the attempt ends: AbortSignal.any over
 * AbortSignal.timeout kept a timer, weak references and a dependant signal alive until
 * the timeout for every call (--cpu-prof of 256 fresh signatures through the upstream).
 * It is the EventEmitter undici takes as a request's signal: an AbortController and its
 * listener cost 8 µs a call, an emitter 0.3 µs (Node 20).
 */
class AttemptEnd extends EventEmitter {
  private readonly timer: NodeJS.Timeout;
  aborted = false;
  timedOut = false;

  constructor(
    timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    super();
    this.timer = setTimeout(this.timeout, timeoutMs).unref();
    if (caller?.aborted) this.aborted = true;
    else caller?.addEventListener('abort', this.abort, { once: true });
  }

  release(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.abort);
  }

  private readonly timeout = (): void => {
    this.timedOut = true;
    this.abort();
  };

  private readonly abort = (): void => {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  };
}

function interpret(httpStatus: number, text: string | undefined, id: number, max: number): JsonRpcAnswered {
  const bad = (problem: JsonRpcReplyProblem, detail: string): JsonRpcAnswered => ({
    kind: 'bad_reply',
    httpStatus,
    problem,
    detail,
  });
  if (text === undefined) return bad('too_large', `answer over ${max} bytes`);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return bad('not_json', `HTTP ${httpStatus}, body is not JSON`);
  }
  if (!isResponse(message)) {
    const f = isResponse.failure();
    return bad('not_jsonrpc', `not a JSON-RPC 2.0 response: ${f.path} ${f.message}`);
  }
  if (message.error == null && message.id !== id) return bad('wrong_id', 'answer for another request id');
  return { kind: 'reply', httpStatus, reply: message };
}

function interpretBatch(httpStatus: number, text: string | undefined, max: number): JsonRpcBatchOutcome {
  if (text === undefined)
    return { kind: 'bad_reply', httpStatus, problem: 'too_large', detail: `answer over ${max} bytes` };
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return {
      kind: 'bad_reply',
      httpStatus,
      problem: 'not_json',
      detail: `HTTP ${httpStatus}, body is not JSON`,
    };
  }
  if (!Array.isArray(message)) return interpret(httpStatus, text, Number.NaN, max);
  for (const one of message) {
    if (!isResponse(one)) {
      const f = isResponse.failure();
      return {
        kind: 'bad_reply',
        httpStatus,
        problem: 'not_jsonrpc',
        detail: `not a JSON-RPC 2.0 response: ${f.path} ${f.message}`,
      };
    }
  }
  return { kind: 'replies', httpStatus, replies: message as JsonrpcResponse[] };
}

/** The body as text, or undefined (the body dropped) when it is over `max` bytes. */
async function readCapped(response: Dispatcher.ResponseData, max: number): Promise<string | undefined> {
  const length = Number(response.headers['content-length']);
  if (length > max) {
    response.body.destroy();
    return undefined;
  }
  // With a length the HTTP parser holds the body to it: read it whole. The async iterator
  // below costs several promises per chunk (a third of a forwarded call's CPU, --cpu-prof).
  if (length >= 0) return response.body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      response.body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** undici's timeout errors, by code: the module itself is loaded only by EndpointPools. */
const TIMEOUT_CODES: ReadonlySet<unknown> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function failureOf(err: unknown): JsonRpcNoAnswer {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (TIMEOUT_CODES.has(code) && typeof message === 'string') return { kind: 'timeout', detail: message };
  return {
    kind: 'unreachable',
    detail: errorCode(err) || (typeof message === 'string' && message) || 'connection failed',
  };
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : '';
}
