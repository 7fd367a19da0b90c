import { compileSchema } from '@rollup-router/core';
import { errors, request, type Dispatcher } from 'undici';
import { routeProbeReplySchema, type RouteProbeReply } from '../generated/schemas.js';

/** Why a probe failed, coarse enough to be a metrics label. */
export type ProbeFailureKind = 'timeout' | 'unreachable' | 'http-status' | 'bad-response' | 'rpc-error';

export type ProbeOutcome =
  | { readonly ok: true; readonly latencyMs: number }
  | {
      readonly ok: false;
      readonly latencyMs: number;
      readonly kind: ProbeFailureKind;
      readonly message: string;
    };

export interface ProbeRequest {
  readonly url: string;
  readonly method: string;
  readonly timeoutMs: number;
  readonly dispatcher: Dispatcher;
  /** Aborts the probe when the registry stops or forgets the node. */
  readonly signal: AbortSignal;
}

const isSuccess = compileSchema<RouteProbeReply>(routeProbeReplySchema);
// A health reply is a few dozen bytes; a node that streams more is not answering the probe.
const MAX_REPLY_BYTES = 64 * 1024;

/** One JSON-RPC call to a node; any JSON-RPC success within the timeout is healthy. */
export async function probe(req: ProbeRequest): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = (): number => performance.now() - started;
  const timeout = AbortSignal.timeout(req.timeoutMs);
  try {
    const res = await request(req.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: req.method }),
      dispatcher: req.dispatcher,
      signal: AbortSignal.any([req.signal, timeout]),
    });
    const text = await readCapped(res.body);
    if (res.statusCode !== 200) {
      return fail('http-status', `HTTP ${res.statusCode}`, elapsed());
    }
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      return fail('bad-response', 'the reply is not JSON', elapsed());
    }
    if (!isSuccess(reply)) {
      const error = (reply as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (error && typeof error === 'object') {
        return fail('rpc-error', `JSON-RPC error ${String(error.code)}: ${String(error.message)}`, elapsed());
      }
      const f = isSuccess.failure();
      return fail('bad-response', `not a JSON-RPC success: ${f.path} ${f.message}`, elapsed());
    }
    return { ok: true, latencyMs: elapsed() };
  } catch (err) {
    if (timeout.aborted) return fail('timeout', `no answer within ${req.timeoutMs} ms`, elapsed());
    if (req.signal.aborted) return fail('unreachable', 'probe cancelled', elapsed());
    return fail(classify(err), describe(err), elapsed());
  }
}

function fail(kind: ProbeFailureKind, message: string, latencyMs: number): ProbeOutcome {
  return { ok: false, kind, message, latencyMs };
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_REPLY_BYTES)
      throw new errors.ResponseExceededMaxSizeError(`reply over ${MAX_REPLY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function classify(err: unknown): ProbeFailureKind {
  if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError) return 'timeout';
  if (err instanceof errors.ConnectTimeoutError) return 'timeout';
  if (err instanceof errors.ResponseExceededMaxSizeError) return 'bad-response';
  return 'unreachable';
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = e.cause?.code ?? e.code;
  const message = String(e.cause?.message ?? e.message ?? err);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
