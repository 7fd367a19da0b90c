/**
 * Every JSON-RPC error code this project emits, in one table. Codes are stable:
 * clients and dashboards key on them. Our own server errors live in -32050..-32079
 * because Solana's RPC already uses -32001..-32016 with other meanings, and an
 * upstream's error is passed through unchanged, so the two must never collide.
 */
export const ErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNAUTHORIZED: -32050,
  RATE_LIMITED: -32051,
  DEADLINE_EXCEEDED: -32052,
  SHUTTING_DOWN: -32053,
  UPSTREAM_TIMEOUT: -32060,
  UPSTREAM_UNREACHABLE: -32061,
  UPSTREAM_BAD_RESPONSE: -32062,
  NO_UPSTREAM: -32063,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/** The message that goes with each code, and the HTTP status its reply carries. */
export const ErrorInfo: Record<ErrorCodeValue, { message: string; httpStatus: number; when: string }> = {
  [ErrorCode.PARSE_ERROR]: { message: 'Parse error', httpStatus: 200, when: 'the body is not valid JSON' },
  [ErrorCode.INVALID_REQUEST]: {
    message: 'Invalid request',
    httpStatus: 200,
    when: 'not a valid request object, path/method mismatch, empty or oversized batch',
  },
  [ErrorCode.METHOD_NOT_FOUND]: { message: 'Method not found', httpStatus: 200, when: 'no such method' },
  [ErrorCode.INVALID_PARAMS]: {
    message: 'Invalid params',
    httpStatus: 200,
    when: "params fail the method's schema (failing path and rule in data)",
  },
  [ErrorCode.INTERNAL_ERROR]: {
    message: 'Internal error',
    httpStatus: 200,
    when: 'a bug or unexpected failure; details are logged with the request id, never returned',
  },
  [ErrorCode.UNAUTHORIZED]: {
    message: 'Unauthorized',
    httpStatus: 401,
    when: 'API keys are configured and the request has none, or a wrong one',
  },
  [ErrorCode.RATE_LIMITED]: {
    message: 'Too many requests',
    httpStatus: 429,
    when: "the client's rate budget is spent; Retry-After says when to come back",
  },
  [ErrorCode.DEADLINE_EXCEEDED]: {
    message: 'Deadline exceeded',
    httpStatus: 200,
    when: 'the call did not finish within the configured per-call deadline',
  },
  [ErrorCode.SHUTTING_DOWN]: {
    message: 'Server is shutting down',
    httpStatus: 503,
    when: 'the server is draining and accepts no new calls',
  },
  [ErrorCode.UPSTREAM_TIMEOUT]: {
    message: 'Upstream timeout',
    httpStatus: 200,
    when: 'every upstream that could answer timed out',
  },
  [ErrorCode.UPSTREAM_UNREACHABLE]: {
    message: 'Upstream unreachable',
    httpStatus: 200,
    when: 'every upstream that could answer refused or dropped the connection',
  },
  [ErrorCode.UPSTREAM_BAD_RESPONSE]: {
    message: 'Upstream bad response',
    httpStatus: 200,
    when: 'every upstream answered with HTTP 5xx, malformed JSON, or a schema-invalid or wrong-length result',
  },
  [ErrorCode.NO_UPSTREAM]: {
    message: 'No upstream available',
    httpStatus: 200,
    when: 'signatures are unknown locally and no upstream is configured or available',
  },
};
