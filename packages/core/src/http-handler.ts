import type { Logger } from 'pino';
import type { ApiKeys } from './api-keys.js';
import type { CallScope } from './call-context.js';
import { ErrorCode, ErrorInfo, type ErrorCodeValue } from './codes.js';
import type { Cors } from './cors.js';
import type { DispatchTarget, Dispatcher } from './dispatcher.js';
import { errorJson, type EnvelopeStyle } from './envelope.js';
import { RpcError } from './errors.js';
import {
  BODY_CONSUMED,
  BODY_TOO_LARGE,
  CLIENT_GONE,
  HOST_BODY_TOO_LARGE,
  HOST_BODY_UNPARSABLE,
  type BodyText,
  type HttpExchange,
  type HttpReply,
} from './exchange.js';
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
    const target = this.anyTarget(path, mount);
    return target?.unknownMethod === true ? undefined : target;
  }

  /**
   * Like `target`, but a path-style path naming no method is one too: a POST there is
   * answered -32601 with the request's id (HTTP 404), not left to a host's HTML 404.
   */
  anyTarget(path: string, mount: MountOptions): DispatchTarget | undefined {
    if (path === '/' || path === '') {
      return mount.root === false ? undefined : { pathMethod: undefined, envelope: 'strict' };
    }
    if (mount.pathStyle === false) return undefined;
    const name = decodePath(path.slice(1));
    if (name === undefined) return undefined;
    const envelope = mount.pathStyleEnvelope ?? 'specification';
    if (this.dispatcher.has(name)) return { pathMethod: name, envelope };
    // Only one segment is claimed: deeper paths stay the host's.
    return path.indexOf('/', 1) < 0 ? { pathMethod: name, envelope, unknownMethod: true } : undefined;
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

    const scope = requestScope(ex, requestId, this.log);
    const text = ex.parsedBody === undefined ? await this.bodyText(ex) : undefined;
    if (text === CLIENT_GONE) {
      // A client going away is not a server error: no stack, not above debug.
      this.log.debug({ reqId: requestId }, 'client went away before its body was complete');
      return fail(400, headers, ErrorCode.PARSE_ERROR, 'incomplete body');
    }
    const parsed = typeof text === 'string' ? parseBody(text) : undefined;
    const body = text === undefined ? ex.parsedBody : parsed?.ok ? parsed.value : undefined;
    const overLimit = text === BODY_TOO_LARGE || text === HOST_BODY_TOO_LARGE;

    // Every request is charged, whatever its body: garbage must not be free.
    if (this.policy.rateLimit) {
      const limited = await this.rateLimited(ex, Array.isArray(body) ? Math.max(1, body.length) : 1);
      if (limited !== undefined) {
        headers['retry-after'] = String(limited);
        return closeIf(
          overLimit,
          headers,
          fail(429, headers, ErrorCode.RATE_LIMITED, { retryAfterSeconds: limited }),
        );
      }
    }
    if (overLimit) {
      const data =
        text === HOST_BODY_TOO_LARGE
          ? "the host's body parser refused the body as over its own limit; mount the router before the host's body parser to apply the router's limit"
          : `body is over the limit of ${this.policy.maxBodyBytes} bytes`;
      return closeIf(
        true,
        headers,
        json(413, headers, this.dispatcher.refuse(scope, ErrorCode.INVALID_REQUEST, data)),
      );
    }
    if (text === BODY_CONSUMED) {
      this.log.error(
        { reqId: requestId },
        'host middleware read the request body and left no req.body; mount the router before it',
      );
      return json(500, headers, this.dispatcher.refuse(scope, ErrorCode.INTERNAL_ERROR, BODY_CONSUMED_DATA));
    }
    if (text === HOST_BODY_UNPARSABLE || parsed?.ok === false) {
      return json(200, headers, this.dispatcher.unparsable(scope));
    }

    const answer = await this.dispatcher.dispatch(body, target, scope);
    const status = target.unknownMethod === true ? 404 : 200;
    return answer === undefined ? { status: 204, headers, body: undefined } : json(status, headers, answer);
  }

  /** The body's text, or why there is none; a declared length over the limit is not read. */
  private bodyText(ex: HttpExchange): Promise<BodyText> {
    const declared = Number(ex.header('content-length'));
    return declared > this.policy.maxBodyBytes
      ? Promise.resolve(BODY_TOO_LARGE)
      : ex.readBody(this.policy.maxBodyBytes);
  }

  /** Seconds to wait when the client is over its budget; a batch costs one point per call. */
  private async rateLimited(ex: HttpExchange, points: number): Promise<number | undefined> {
    const limit = this.policy.rateLimit!;
    const key = limit.clientKey(ex.remoteAddress, ex.header('x-forwarded-for'));
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

const BODY_CONSUMED_DATA =
  'the request body was read by middleware before the router and nothing usable was left; mount the router before it';

/**
 * What every call of one HTTP request shares, the client-gone signal included: one
 * listener on the response however many calls a batch holds, made on first use.
 */
function requestScope(ex: HttpExchange, requestId: string, log: Logger): CallScope {
  let gone: AbortController | undefined;
  return {
    requestId,
    origin: { remoteAddress: ex.remoteAddress, headers: ex.headers },
    log,
    get clientGone(): AbortSignal {
      if (!gone) {
        const controller = (gone = new AbortController());
        ex.onClientGone(() => controller.abort(new Error('client disconnected')));
      }
      return gone.signal;
    },
  };
}

/** The body was not read to its end: close the connection after the reply, lingering first. */
function closeIf(overLimit: boolean, headers: Record<string, string>, reply: HttpReply): HttpReply {
  if (!overLimit) return reply;
  headers['connection'] = 'close';
  return { ...reply, lingerBeforeClose: true };
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
