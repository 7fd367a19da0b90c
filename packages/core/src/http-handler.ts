import type { Logger } from 'pino';
import { refusalData, type Admission, type Payer, type Verdict } from './admission.js';
import type { CallOrigin } from './call-context.js';
import type { MessageScope, GoneFollowers } from './call.js';
import type { Cors } from './cors.js';
import type { DispatchPolicy, Dispatcher } from './dispatcher.js';
import type { EnvelopeStyle } from './envelope.js';
import { RpcError } from './errors.js';
import { getHttpStatusCode, HttpRefusal, type HttpRefusalName } from './http-status.js';
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
import { parseBody, type ExactIds } from './exact-ids.js';
import { mountOptionsSchema, type MountOptions, type MountOptionsResolved } from './generated/schemas.js';
import { JSON_CONTENT_TYPE, refusalReply } from './refusal-reply.js';
import { requestIdOf } from './request-id-header.js';
import { UPSTREAM_HEADER } from './upstream-header.js';
import { validateOptions } from './validate-options.js';

/** Which endpoint styles a mount serves, and the envelope of its path-style endpoints: schemas/mount-options. */
export type { MountOptions };

// The schema's defaults, for the keys a mount leaves out (adapters pass mounts unvalidated).
const MOUNT_DEFAULTS = validateOptions<MountOptionsResolved>(mountOptionsSchema, {}, 'mount options');

/**
 * An RPC endpoint below a mount. The HTTP layer decides envelopes from URL path styles and
 * hands the dispatcher only its policy.
 */
export interface DispatchTarget {
  /** The dispatcher's policy: the root's, or a path-style endpoint's. */
  readonly policy: DispatchPolicy;
  /** Set when the path names no method: the call is answered -32601 with HTTP 404. */
  readonly unknownMethod?: boolean;
}

const ROOT: DispatchTarget = { policy: { onlyMethod: undefined, errorNullWhereDeclared: false } };

export interface HttpPolicy {
  readonly maxBodyBytes: number;
  readonly cors: Cors;
  /** Drain, rate limit and API keys: the service's one admission step. */
  readonly admission: Admission;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const ALLOW = 'POST, OPTIONS';

/**
 * HTTP rules of the wire contract, over any transport: methods, CORS and request ids, then
 * the service's admission step (drain, rate limit, API key) before the body is read, then
 * content type, size limit and dispatch. Every reply carries a JSON-RPC body except 204s.
 */
export class HttpHandler {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly policy: HttpPolicy,
    private readonly log: Logger,
  ) {}

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
      return (mount.root ?? MOUNT_DEFAULTS.root) ? ROOT : undefined;
    }
    if (!(mount.pathStyle ?? MOUNT_DEFAULTS.pathStyle)) return undefined;
    const name = decodePath(path.slice(1));
    if (name === undefined) return undefined;
    // Only path-style endpoints may carry the specification's envelope; the root is always strict.
    const policy = { onlyMethod: name, errorNullWhereDeclared: envelopeOf(mount) === 'specification' };
    if (this.dispatcher.has(name)) return { policy };
    // Only one segment is claimed: deeper paths stay the host's.
    return path.indexOf('/', 1) < 0 ? { policy, unknownMethod: true } : undefined;
  }

  /** Answers one request; a throw anywhere is a rejection, as from an async function. */
  handle(ex: HttpExchange, target: DispatchTarget, context?: () => unknown): Promise<HttpReply> {
    try {
      return this.begin(ex, target, context);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private begin(
    ex: HttpExchange,
    target: DispatchTarget,
    context: (() => unknown) | undefined,
  ): Promise<HttpReply> {
    const requestId = requestIdOf(ex.header('x-request-id'));
    // Security headers are the host's call (the reference server sets them): each header
    // costs Node a validation per reply on the hot path.
    const headers: Record<string, string> = { 'x-request-id': requestId };
    const refused = this.refuseByHeaders(ex, headers);
    if (refused !== undefined) return Promise.resolve(refused);

    const { admission } = this.policy;
    const address = admission.clientAddress(ex.remoteAddress, ex.header('x-forwarded-for'));
    const key = admission.keyOf({ authorization: ex.header('authorization'), query: ex.query });
    const client: Payer = { address, key };
    const verdict = admission.admitRequest(address, key);
    return verdict instanceof Promise
      ? verdict.then((v) => this.admitted(ex, target, headers, requestId, client, v, context))
      : Promise.resolve(this.admitted(ex, target, headers, requestId, client, verdict, context));
  }

  /** After admission: refused, or on to the content type and the body. */
  private admitted(
    ex: HttpExchange,
    target: DispatchTarget,
    headers: Record<string, string>,
    requestId: string,
    client: Payer,
    verdict: Verdict,
    context: (() => unknown) | undefined,
  ): HttpReply | Promise<HttpReply> {
    if (verdict !== undefined) return this.refused(verdict, headers);
    const contentType = ex.header('content-type');
    if (contentType === undefined || !JSON_TYPE.test(contentType)) {
      return this.fail('UNSUPPORTED_MEDIA_TYPE', headers, 'Content-Type must be application/json');
    }
    const scope = new HttpMessageScope(ex, requestId, this.log);
    if (context === undefined) return this.read(ex, target, headers, scope, client);
    // The host's context, once for every call of the request; made after admission, so
    // refused requests cost the host nothing.
    const failed = (err: unknown): HttpReply => json(200, headers, this.dispatcher.failed(scope, err));
    let made: unknown;
    try {
      made = context();
    } catch (err) {
      return failed(err);
    }
    if (!(made instanceof Promise)) {
      scope.host = made;
      return this.read(ex, target, headers, scope, client);
    }
    return made.then((host: unknown) => {
      scope.host = host;
      return this.read(ex, target, headers, scope, client);
    }, failed);
  }

  /** The body, then its answer. */
  private read(
    ex: HttpExchange,
    target: DispatchTarget,
    headers: Record<string, string>,
    scope: HttpMessageScope,
    client: Payer,
  ): HttpReply | Promise<HttpReply> {
    if (ex.parsedBody !== undefined) return this.answerBody(ex, target, headers, scope, client, undefined);
    // The one wait of a call whose handler answers synchronously: the body.
    return this.bodyText(ex).then((text) => this.answerBody(ex, target, headers, scope, client, text));
  }

  /** Everything after the body was read; synchronous unless a batch's charge or the handler waits. */
  private answerBody(
    ex: HttpExchange,
    target: DispatchTarget,
    headers: Record<string, string>,
    scope: HttpMessageScope,
    client: Payer,
    text: BodyText | undefined,
  ): HttpReply | Promise<HttpReply> {
    if (text === CLIENT_GONE) {
      // A client going away is not a server error: no stack, not above debug.
      this.log.debug({ reqId: scope.requestId }, 'client went away before its body was complete');
      return this.fail('INCOMPLETE_BODY', headers, 'incomplete body');
    }
    if (text !== undefined && typeof text !== 'string') return this.refuseBody(text, headers, scope);
    const parsed = text === undefined ? undefined : parseBody(text);
    if (parsed?.ok === false) return json(200, headers, this.dispatcher.unparsable(scope));
    const body = parsed === undefined ? ex.parsedBody : parsed.value;
    const exactIds = parsed?.exactIds;
    // The message paid one point on admission; the rest of what its calls cost is paid now.
    const charged = this.policy.admission.chargeCalls(client.address, client.key, body);
    if (charged === undefined) return this.dispatchBody(body, target, headers, scope, exactIds);
    return charged instanceof Promise
      ? charged.then((v) =>
          v === undefined
            ? this.dispatchBody(body, target, headers, scope, exactIds)
            : this.refused(v, headers),
        )
      : this.refused(charged, headers);
  }

  private dispatchBody(
    body: unknown,
    target: DispatchTarget,
    headers: Record<string, string>,
    scope: HttpMessageScope,
    exactIds: ExactIds | undefined,
  ): HttpReply | Promise<HttpReply> {
    const answer = this.dispatcher.dispatch(body, target.policy, scope, exactIds);
    const status = getHttpStatusCode(target.unknownMethod === true ? 'NO_SUCH_PATH' : undefined);
    const reply = (text: string | undefined): HttpReply => {
      if (scope.upstreams !== undefined && !Array.isArray(body))
        headers[UPSTREAM_HEADER] = scope.upstreams.join(', ');
      return text === undefined ? { status: 204, headers, body: undefined } : json(status, headers, text);
    };
    return answer instanceof Promise ? answer.then(reply) : reply(answer);
  }

  /** The HTTP rules decided by the method and headers alone, before any body is read. */
  private refuseByHeaders(ex: HttpExchange, headers: Record<string, string>): HttpReply | undefined {
    const origin = ex.header('origin');
    if (ex.method === 'OPTIONS') {
      this.policy.cors.preflight(headers, origin, ex.header('access-control-request-headers'));
      return { status: 204, headers, body: undefined };
    }
    this.policy.cors.apply(headers, origin);
    if (ex.method !== 'POST') {
      headers['allow'] = ALLOW;
      return this.fail('METHOD_NOT_ALLOWED', headers, `HTTP method ${ex.method} is not allowed; use POST`);
    }
    return undefined;
  }

  /** A request the admission step refused. */
  private refused(verdict: NonNullable<Verdict>, headers: Record<string, string>): HttpReply {
    return this.fail(verdict.why, headers, refusalData(verdict));
  }

  /** A refusal's reply: its HTTP status and JSON-RPC code from the one table, id null. */
  private fail(why: HttpRefusalName, headers: Record<string, string>, data?: unknown): HttpReply {
    const error = RpcError.of(HttpRefusal[why].code, data).toJSON();
    return refusal(why, headers, this.dispatcher.errorJson('null', error), data);
  }

  /** A body that is no text to parse: over a limit, refused by a host parser, or consumed. Logged and observed. */
  private refuseBody(
    why: Exclude<BodyText, string | typeof CLIENT_GONE>,
    headers: Record<string, string>,
    scope: MessageScope,
  ): HttpReply {
    if (why === HOST_BODY_UNPARSABLE) return json(200, headers, this.dispatcher.unparsable(scope));
    if (why === BODY_CONSUMED) {
      scope.log.error(
        { reqId: scope.requestId },
        'host middleware read the request body and left no req.body; mount the router before it',
      );
      return refusal(
        'BODY_CONSUMED',
        headers,
        this.dispatcher.refuse(scope, HttpRefusal.BODY_CONSUMED.code, BODY_CONSUMED_DATA),
      );
    }
    const data =
      why === HOST_BODY_TOO_LARGE
        ? "the host's body parser refused the body as over its own limit; mount the router before the host's body parser to apply the router's limit"
        : `body is over the limit of ${this.policy.maxBodyBytes} bytes`;
    const answer = this.dispatcher.refuse(scope, HttpRefusal.BODY_TOO_LARGE.code, data);
    return closeIf(true, headers, refusal('BODY_TOO_LARGE', headers, answer));
  }

  /** The body's text, or why there is none; a declared length over the limit is not read. */
  private bodyText(ex: HttpExchange): Promise<BodyText> {
    const declared = Number(ex.header('content-length'));
    return declared > this.policy.maxBodyBytes
      ? Promise.resolve(BODY_TOO_LARGE)
      : ex.readBody(this.policy.maxBodyBytes);
  }
}

const BODY_CONSUMED_DATA =
  'the request body was read by middleware before the router and nothing usable was left; mount the router before it';

/**
 * What every call of one HTTP request shares, the client-gone signal included: one
 * listener on the response however many calls a batch holds, made on first use. A class,
 * not an object literal with a getter, which V8 builds on a slow path per request.
 */
class HttpMessageScope implements MessageScope, GoneFollowers {
  readonly origin: CallOrigin;
  /** The host's context, set once made (before any call runs). */
  host: unknown = undefined;
  /** The upstreams that answered the request's (last) call, in the order named; undefined while none. */
  upstreams: readonly string[] | undefined;
  /** Who follows the client's end; undefined until the first, then one listener on the response. */
  private followers: ((reason: unknown) => void)[] | undefined;
  private goneReason: Error | undefined;

  constructor(
    private readonly ex: HttpExchange,
    readonly requestId: string,
    readonly log: Logger,
  ) {
    this.origin = { remoteAddress: ex.remoteAddress, headers: ex.headers };
  }

  answered(upstreams: readonly string[]): void {
    this.upstreams = upstreams;
  }

  /** The request follows its own client: no AbortSignal is made for it. */
  get clientGone(): GoneFollowers {
    return this;
  }

  follow(listener: (reason: unknown) => void): void {
    if (this.goneReason) return listener(this.goneReason);
    if (this.followers) {
      this.followers.push(listener);
      return;
    }
    const followers = (this.followers = [listener]);
    this.ex.onClientGone(() => {
      const reason = (this.goneReason = new Error('client disconnected'));
      for (const follow of followers.splice(0)) follow(reason);
    });
  }
}

/** The body was not read to its end: close the connection after the reply, lingering first. */
function closeIf(overLimit: boolean, headers: Record<string, string>, reply: HttpReply): HttpReply {
  if (!overLimit) return reply;
  headers['connection'] = 'close';
  return { ...reply, lingerBeforeClose: true };
}

const envelopeOf = (mount: MountOptions): EnvelopeStyle =>
  mount.pathStyleEnvelope ?? MOUNT_DEFAULTS.pathStyleEnvelope;

function decodePath(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function json(status: number, headers: Record<string, string>, body: string): HttpReply {
  headers['content-type'] = JSON_CONTENT_TYPE;
  return { status, headers, body };
}

function refusal(
  why: HttpRefusalName,
  headers: Record<string, string>,
  body: string,
  data?: unknown,
): HttpReply {
  return refusalReply(getHttpStatusCode(why), headers, body, why, data);
}
