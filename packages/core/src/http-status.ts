import { ErrorCode, ErrorInfo, type ErrorCodeValue } from './codes.js';

/**
 * Every reason the HTTP layer answers with a status other than 200, with the JSON-RPC
 * code its body carries: the one table that decides HTTP statuses (as tRPC's
 * getHTTPStatusCode). A call's own error, whatever its code, is HTTP 200 (wire contract).
 * A 503 is only ever a refusal made before anything of the request was read or done, so a
 * load balancer may send that request to another instance (deploy/haproxy/haproxy.cfg
 * does: `retry-on conn-failure 503`).
 */
export const HttpRefusal = {
  METHOD_NOT_ALLOWED: { status: 405, code: ErrorCode.INVALID_REQUEST },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: ErrorCode.PARSE_ERROR },
  UNAUTHORIZED: { status: 401, code: ErrorCode.UNAUTHORIZED },
  SHUTTING_DOWN: { status: 503, code: ErrorCode.SHUTTING_DOWN },
  RATE_LIMITED: { status: 429, code: ErrorCode.RATE_LIMITED },
  BODY_TOO_LARGE: { status: 413, code: ErrorCode.INVALID_REQUEST },
  INCOMPLETE_BODY: { status: 400, code: ErrorCode.PARSE_ERROR },
  BODY_CONSUMED: { status: 500, code: ErrorCode.INTERNAL_ERROR },
  NO_SUCH_PATH: { status: 404, code: ErrorCode.METHOD_NOT_FOUND },
  ORIGIN_NOT_ALLOWED: { status: 403, code: ErrorCode.UNAUTHORIZED },
  TOO_MANY_CONNECTIONS: { status: 503, code: ErrorCode.RATE_LIMITED },
  TOO_MANY_CONNECTIONS_FROM_CLIENT: { status: 429, code: ErrorCode.RATE_LIMITED },
  UNCAUGHT: { status: 500, code: ErrorCode.INTERNAL_ERROR },
} as const satisfies Record<string, { status: number; code: ErrorCodeValue }>;

export type HttpRefusalName = keyof typeof HttpRefusal;

/** The body of NO_SUCH_PATH's 404 where no call was read (a path that is no endpoint): its code, id null. */
export const NOT_FOUND_BODY = JSON.stringify({
  jsonrpc: '2.0',
  error: { code: HttpRefusal.NO_SUCH_PATH.code, message: ErrorInfo[HttpRefusal.NO_SUCH_PATH.code].message },
  id: null,
});

/** The HTTP status of a reply: a refusal's, or 200 for an answer made of calls. */
export function getHttpStatusCode(refusal: HttpRefusalName | undefined): number {
  return refusal === undefined ? 200 : HttpRefusal[refusal].status;
}
