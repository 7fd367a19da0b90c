import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { AddressRefusedError, type AddressGuard } from './address-guard.js';
import { endingOf, type CallEnding } from './call.js';
import { deadlineIn, type Deadline } from './deadlines.js';
import { EndpointPools } from './endpoint-pools.js';
import { jsonrpcResponseSchema, type JsonrpcResponse } from './generated/schemas.js';
import { startUpstreamSpan, type UpstreamSpan } from './tracing/upstream-spans.js';
import type { UpstreamCallOutcome } from './upstream-call.js';
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
  /** The same as `signal`, followed without one (a call's context is one); `signal` is then not read. */
  readonly ending?: CallEnding;
  /** A reply over this many bytes is not read further; default the client's `maxReplyBytes`. */
  readonly maxReplyBytes?: number;
  /**
   * Tries again after a connection error (refused, reset, closed), this many times. Never
   * after a timeout: the server may still be working on it. Default 0.
   */
  readonly connectionRetries?: number;
  /**
   * Connects only where this guard allows (a URL someone other than the operator chose):
   * a refused address is `unreachable`, its detail saying why.
   */
  readonly addressGuard?: AddressGuard;
  /**
   * The upstream's name as logs and metrics show it (never its URL): with tracing on, the
   * call is a child span of the call it works for, naming it. Unnamed calls get no span.
   */
  readonly upstream?: string;
}

/** Why a reply is not one: too large, not JSON, not a JSON-RPC 2.0 response, or a success for another id. */
export type JsonRpcReplyProblem = 'too_large' | 'not_json' | 'not_jsonrpc' | 'wrong_id';

/** An HTTP answer came: a JSON-RPC response (success or error, any HTTP status), or a bad reply. */
export type JsonRpcAnswered =
  | {
      readonly kind: 'reply';
      readonly httpStatus: number;
      readonly reply: JsonrpcResponse;
      /** The response as the server wrote it: `resultText` takes its result's own bytes from it. */
      readonly text: string;
    }
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
    const max = call.maxReplyBytes ?? this.maxReplyBytes;
    const span = call.upstream === undefined ? undefined : startUpstreamSpan(call.upstream, call.method, id);
    const outcome = this.attempts(url, body, call, (status, text) => interpret(status, text, id, max));
    return span === undefined ? outcome : outcome.then((o) => ended(span, o));
  }

  /** Sends calls as one batch; never after a connection error (a batch is not retried). */
  batch(
    url: string,
    calls: readonly JsonRpcBatchCall[],
    options: Pick<JsonRpcCall, 'timeoutMs' | 'signal' | 'addressGuard'>,
  ): Promise<JsonRpcBatchOutcome> {
    const body = JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', ...c })));
    return this.attempts(url, body, options, (status, text) =>
      interpretBatch(status, text, this.maxReplyBytes),
    );
  }

  private async attempts<T>(
    url: string,
    body: string,
    call: Pick<
      JsonRpcCall,
      'timeoutMs' | 'signal' | 'ending' | 'connectionRetries' | 'maxReplyBytes' | 'addressGuard'
    >,
    read: (httpStatus: number, text: string | undefined) => T,
  ): Promise<T | JsonRpcNoAnswer> {
    const retries = call.connectionRetries ?? 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const { status, text } = await this.exchange(url, body, call);
        return read(status, text);
      } catch (err) {
        if (err instanceof NotHttp) return { kind: 'unreachable', detail: 'not an http(s) URL' };
        if (err === TIMED_OUT) return { kind: 'timeout', detail: `no answer within ${call.timeoutMs} ms` };
        if (err === CANCELLED) return { kind: 'aborted', detail: 'cancelled' };
        if (attempt < retries && CONNECTION_ERRORS.has(errorCode(err))) continue;
        return failureOf(err);
      }
    }
  }

  /** Closes every connection, waiting for requests under way. */
  close(): Promise<void> {
    return this.pools.close();
  }

  private exchange(
    url: string,
    body: string,
    call: Pick<JsonRpcCall, 'timeoutMs' | 'signal' | 'ending' | 'maxReplyBytes' | 'addressGuard'>,
  ): Promise<{ status: number; text: string | undefined }> {
    let endpoint;
    try {
      endpoint = this.pools.get(url, call.addressGuard);
    } catch {
      return Promise.reject(new NotHttp());
    }
    const headers =
      endpoint.authorization && this.headers.authorization === undefined
        ? { ...this.headers, authorization: endpoint.authorization }
        : this.headers;
    const ending = call.ending ?? (call.signal === undefined ? undefined : endingOf(call.signal));
    return new Promise((resolve, reject) => {
      const max = call.maxReplyBytes ?? this.maxReplyBytes;
      const reader = new ReplyReader(max, call.timeoutMs, ending, resolve, reject);
      // An end that came first (a caller already gone) is the answer: nothing is sent.
      if (!reader.ended)
        endpoint.pool.dispatch({ method: 'POST', path: endpoint.path, headers, body }, reader);
    });
  }
}

class NotHttp extends Error {}

/** Why an attempt ended without an answer, when it was not the connection's fault. */
const TIMED_OUT = Symbol('timed out');
const CANCELLED = Symbol('cancelled');

/**
 * One attempt, read as undici's dispatch handler: the reply's status and text (undefined
 * over `max` bytes), or why none came. Its end is the timeout (a deadline) or the caller's
 * end, whichever comes first. undici's request() made a body stream and followed an
 * emitter as its signal, per call: ~40 µs of a forwarded sendTransaction's CPU (Node 20,
 * --cpu-prof); AbortSignal.any over AbortSignal.timeout before that kept a timer, weak
 * references and a dependant signal alive until the timeout.
 */
class ReplyReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  ended = false;
  private readonly deadline: Deadline;
  private readonly unfollow: (() => void) | undefined;

  constructor(
    private readonly max: number,
    timeoutMs: number,
    caller: CallEnding | undefined,
    private readonly resolve: (reply: { status: number; text: string | undefined }) => void,
    private readonly reject: (why: unknown) => void,
  ) {
    this.deadline = deadlineIn(timeoutMs, this.timeout, { keepsAlive: false });
    this.unfollow = caller?.follow(this.cancel);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Ended while it waited for a connection: it goes no further.
    if (this.ended) controller.abort(new Error('attempt ended'));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (this.ended || statusCode < 200) return; // ended, or informational: the response is still to come
    this.status = statusCode;
    if (Number(headers['content-length']) > this.max) this.tooLarge();
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.ended) return;
    this.size += chunk.length;
    if (this.size > this.max) return this.tooLarge();
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.ended) return;
    const { chunks, size } = this;
    const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
    this.settle();
    this.resolve({ status: this.status, text });
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    if (this.ended) return;
    this.settle();
    this.reject(error);
  }

  /** Over the limit: the answer is that (no text), and the rest is not read. */
  private tooLarge(): void {
    this.settle();
    this.resolve({ status: this.status, text: undefined });
    this.controller?.abort(new Error('reply over the size limit'));
  }

  private readonly timeout = (): void => this.end(TIMED_OUT);
  private readonly cancel = (): void => this.end(CANCELLED);

  /** Our end of the attempt: the request under way, or still waiting for a connection, is aborted. */
  private end(why: typeof TIMED_OUT | typeof CANCELLED): void {
    if (this.ended) return;
    this.settle();
    this.reject(why);
    this.controller?.abort(new Error(why === TIMED_OUT ? 'timed out' : 'cancelled'));
  }

  private settle(): void {
    this.ended = true;
    this.deadline.cancel();
    this.unfollow?.();
  }
}

/** What became of a call, in the words every upstream call is reported with. */
export function upstreamCallOutcome(outcome: JsonRpcOutcome): UpstreamCallOutcome {
  if (outcome.kind === 'reply') return outcome.reply.error == null ? 'ok' : 'rpc_error';
  return outcome.kind === 'bad_reply' ? 'bad_response' : outcome.kind;
}

function ended(span: UpstreamSpan, outcome: JsonRpcOutcome): JsonRpcOutcome {
  span.end(
    upstreamCallOutcome(outcome),
    outcome.kind === 'reply' ? (outcome.reply.error ?? undefined) : undefined,
  );
  return outcome;
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
  return { kind: 'reply', httpStatus, reply: message, text };
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

/** undici's timeout errors, by code: the module itself is loaded only by EndpointPools. */
const TIMEOUT_CODES: ReadonlySet<unknown> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function failureOf(err: unknown): JsonRpcNoAnswer {
  if (err instanceof AddressRefusedError) return { kind: 'unreachable', detail: err.message };
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
