import type { Logger } from 'pino';
import type { ApiKeys } from './api-keys.js';
import type { CallScope } from './call-context.js';
import { ErrorCode, ErrorInfo, type ErrorCodeValue } from './codes.js';
import type { Cors } from './cors.js';
import type { DispatchTarget, Dispatcher } from './dispatcher.js';
import { errorJson, type EnvelopeStyle } from './envelope.js';
import { RpcError } from './errors.js';
import { BODY_TOO_LARGE, type HttpExchange, type HttpReply } from './exchange.js';
import { parseBody } from './json.js';
import type { RateLimit } from './rate-limit.js';
import { requestIdOf } from './request-id.js';

/** Which endpoint styles a mount serves, and the envelope of its path-style endpoints. */
export interface MountOptions {
  /** `POST <mount>/`: strict JSON-RPC 2.0, for @solana/kit, web3.js and any JSON-RPC client. Default true. */
  readonly root?: boolean;
  /** `POST <mount>/<method>`: one path per method, as the specification. Default true. */
  readonly pathStyle?: boolean;
  /** Envelope of path-style successes. Default 'specification' (`"error": null` where the method declares it). */
  readonly pathStyleEnvelope?: EnvelopeStyle;
}

export interface HttpPolicy {
  readonly maxBodyBytes: number;
  readonly cors: Cors;
  readonly apiKeys: ApiKeys;
  readonly rateLimit: RateLimit | undefined;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const ALLOW = 'POST, OPTIONS';

/**
 * HTTP rules of the wire contract, over any transport: methods, content types, size
 * limit, CORS, request ids, API keys and rate limits, then dispatch. Every reply
 * carries a JSON-RPC body except 204s.
 */
export class HttpHandler {
  private draining = false;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly policy: HttpPolicy,
    private readonly log: Logger,
  ) {}

  /** Stops taking new calls (graceful shutdown): later requests get 503 -32053. */
  drain(): void {
    this.draining = true;
  }

  /** The dispatch target for a path below the mount, or undefined when the path is not an RPC endpoint. */
  target(path: string, mount: MountOptions): DispatchTarget | undefined {
    if (path === '/' || path === '') {
      return mount.root === false ? undefined : { pathMethod: undefined, envelope: 'strict' };
    }
    if (mount.pathStyle === false) return undefined;
    const name = decodePath(path.slice(1));
    if (name === undefined || !this.dispatcher.has(name)) return undefined;
    return { pathMethod: name, envelope: mount.pathStyleEnvelope ?? 'specification' };
  }

  async handle(ex: HttpExchange, target: DispatchTarget): Promise<HttpReply> {
    const requestId = requestIdOf(ex.header('x-request-id'));
    // Security headers are the host's call (the reference server sets them): each header
    // costs Node a validation per reply on the hot path.
    const headers: Record<string, string> = { 'x-request-id': requestId };
    const origin = ex.header('origin');
    if (ex.method === 'OPTIONS') {
      this.policy.cors.preflight(headers, origin, ex.header('access-control-request-headers'));
      return { status: 204, headers, body: undefined };
    }
    this.policy.cors.apply(headers, origin);
    if (ex.method !== 'POST') {
      headers['allow'] = ALLOW;
      return fail(
        405,
        headers,
        ErrorCode.INVALID_REQUEST,
        `HTTP method ${ex.method} is not allowed; use POST`,
      );
    }
    if (this.draining) {
      headers['connection'] = 'close';
      return fail(ErrorInfo[ErrorCode.SHUTTING_DOWN].httpStatus, headers, ErrorCode.SHUTTING_DOWN);
    }
    const contentType = ex.header('content-type');
    if (contentType === undefined || !JSON_TYPE.test(contentType)) {
      return fail(415, headers, ErrorCode.PARSE_ERROR, 'Content-Type must be application/json');
    }
    if (this.policy.apiKeys.enabled && !this.policy.apiKeys.accepts(ex.header('authorization'), ex.query)) {
      headers['www-authenticate'] = 'Bearer';
      return fail(401, headers, ErrorCode.UNAUTHORIZED);
    }

    const scope: CallScope = {
      requestId,
      origin: { remoteAddress: ex.remoteAddress, headers: ex.headers },
      log: this.log,
      onClientGone: (listener) => ex.onClientGone(listener),
    };
    let body = ex.parsedBody;
    if (body === undefined) {
      const declared = Number(ex.header('content-length'));
      const text =
        declared > this.policy.maxBodyBytes ? BODY_TOO_LARGE : await ex.readBody(this.policy.maxBodyBytes);
      if (text === BODY_TOO_LARGE) {
        headers['connection'] = 'close';
        return fail(
          413,
          headers,
          ErrorCode.INVALID_REQUEST,
          `body is over the limit of ${this.policy.maxBodyBytes} bytes`,
        );
      }
      const parsed = parseBody(text);
      if (!parsed.ok) return json(200, headers, this.dispatcher.unparsable(scope));
      body = parsed.value;
    }

    if (this.policy.rateLimit) {
      const limited = await this.rateLimited(ex, body);
      if (limited !== undefined) {
        headers['retry-after'] = String(limited);
        return fail(429, headers, ErrorCode.RATE_LIMITED, { retryAfterSeconds: limited });
      }
    }

    const answer = await this.dispatcher.dispatch(body, target, scope);
    return answer === undefined ? { status: 204, headers, body: undefined } : json(200, headers, answer);
  }

  /** Seconds to wait when the client is over its budget; a batch costs one point per call. */
  private async rateLimited(ex: HttpExchange, body: unknown): Promise<number | undefined> {
    const limit = this.policy.rateLimit!;
    const key = limit.clientKey(ex.remoteAddress, ex.header('x-forwarded-for'));
    const points = Array.isArray(body) ? Math.max(1, body.length) : 1;
    try {
      const decision = await limit.consume(key, points);
      return decision.allowed ? undefined : decision.retryAfterSeconds;
    } catch (err) {
      // A shared store that is down must not take the service down with it: fail open, loudly.
      this.log.error({ err }, 'rate limit store failed; request allowed');
      return undefined;
    }
  }
}

function decodePath(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function json(status: number, headers: Record<string, string>, body: string): HttpReply {
  headers['content-type'] = 'application/json; charset=utf-8';
  return { status, headers, body };
}

function fail(
  status: number,
  headers: Record<string, string>,
  code: ErrorCodeValue,
  data?: unknown,
): HttpReply {
  return json(status, headers, errorJson('null', RpcError.of(code, data).toJSON()));
}
