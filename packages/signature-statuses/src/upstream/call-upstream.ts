import { compileSchema, type RpcErrorObject } from '@rollup-router/core';
import type { Dispatcher } from 'undici';
import { getSignatureStatusesResultSchema, type GetSignatureStatusesResult } from '../generated/schemas.js';
import { statusMatchesErr } from '../status.js';
import type { UpstreamEndpoint, UpstreamPools } from './pools.js';

export interface UpstreamTarget {
  readonly url: string;
  readonly timeoutMs: number;
}

export type UpstreamFailureKind = 'timeout' | 'unreachable' | 'bad_response' | 'aborted';

export type UpstreamOutcome =
  | { readonly kind: 'ok'; readonly result: GetSignatureStatusesResult }
  | { readonly kind: 'rpc_error'; readonly error: RpcErrorObject }
  | { readonly kind: UpstreamFailureKind; readonly detail: string };

/** A status answer is a few hundred bytes per signature; anything far beyond is not one. */
const MAX_ANSWER_BYTES = 1 << 20;

/** Errors that mean the connection failed before an answer came: worth one more try. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const validateResult = compileSchema<GetSignatureStatusesResult>(getSignatureStatusesResultSchema);

let nextId = 1;

/**
 * Asks one upstream for the statuses of `signatures` (at most 256). Never throws: every
 * failure is an outcome. A connection error is retried once; a timeout never is (the
 * upstream may still be working on it, and the deadline is already half spent).
 */
export async function callUpstream(
  pools: UpstreamPools,
  target: UpstreamTarget,
  signatures: readonly string[],
  searchTransactionHistory: boolean,
  signal: AbortSignal,
): Promise<UpstreamOutcome> {
  const id = nextId++;
  const params = searchTransactionHistory ? [signatures, { searchTransactionHistory: true }] : [signatures];
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'getSignatureStatuses', params });
  for (let attempt = 1; ; attempt++) {
    let endpoint: UpstreamEndpoint;
    try {
      endpoint = pools.get(target.url);
    } catch {
      return { kind: 'unreachable', detail: 'not an http(s) URL' };
    }
    const { pool, path, authorization } = endpoint;
    const timeout = AbortSignal.timeout(target.timeoutMs);
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization) headers.authorization = authorization;
      const response = await pool.request({
        method: 'POST',
        path,
        headers,
        body,
        signal: AbortSignal.any([signal, timeout]),
      });
      return await interpret(response, id, signatures.length);
    } catch (err) {
      if (timeout.aborted) return { kind: 'timeout', detail: `no answer within ${target.timeoutMs} ms` };
      if (signal.aborted) {
        const deadline = (signal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
        return deadline
          ? { kind: 'timeout', detail: 'lookup deadline passed' }
          : { kind: 'aborted', detail: 'every caller went away' };
      }
      const code = errorCode(err);
      if (CONNECTION_ERRORS.has(code) && attempt === 1) continue;
      return { kind: 'unreachable', detail: code || 'connection failed' };
    }
  }
}

async function interpret(
  response: Dispatcher.ResponseData,
  id: number,
  expected: number,
): Promise<UpstreamOutcome> {
  const text = await readCapped(response);
  if (text === undefined) return { kind: 'bad_response', detail: `answer over ${MAX_ANSWER_BYTES} bytes` };
  if (response.statusCode >= 500) return { kind: 'bad_response', detail: `HTTP ${response.statusCode}` };
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'bad_response', detail: `HTTP ${response.statusCode}, body is not JSON` };
  }
  if (!isObject(message) || message.jsonrpc !== '2.0') {
    return { kind: 'bad_response', detail: 'not a JSON-RPC 2.0 response' };
  }
  if (isRpcError(message.error)) {
    const { code, message: text, data } = message.error;
    return {
      kind: 'rpc_error',
      error: data === undefined ? { code, message: text } : { code, message: text, data },
    };
  }
  if (response.statusCode !== 200) return { kind: 'bad_response', detail: `HTTP ${response.statusCode}` };
  if (message.id !== id) return { kind: 'bad_response', detail: 'answer for another request id' };
  const result = message.result;
  if (!validateResult(result)) {
    const f = validateResult.failure('/result');
    return { kind: 'bad_response', detail: `result ${f.path} ${f.message} (${f.rule})` };
  }
  if (result.value.length !== expected) {
    return { kind: 'bad_response', detail: `${result.value.length} statuses for ${expected} signatures` };
  }
  if (!result.value.every((s) => s === null || statusMatchesErr(s.status, s.err))) {
    return { kind: 'bad_response', detail: 'a status whose status and err disagree' };
  }
  return { kind: 'ok', result };
}

async function readCapped(response: Dispatcher.ResponseData): Promise<string | undefined> {
  const declared = Number(response.headers['content-length']);
  if (declared > MAX_ANSWER_BYTES) {
    response.body.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      response.body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const isRpcError = (v: unknown): v is RpcErrorObject =>
  isObject(v) && Number.isInteger(v.code) && typeof v.message === 'string';

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : '';
}
