/**
 * JSON-RPC's error codes and the core's own, in one table; a plugin declares its own
 * codes on its Plugin object (`errors`), checked against these when the service is built.
 * Codes are stable: logs, metrics and dashboards key on them. The core's server errors live
 * in -32050..-32059 and plugins' conventionally in -32060..-32079, because Solana's RPC
 * already uses -32001..-32021 with other meanings, and an upstream's error is passed
 * through unchanged, so the two must never collide. How they go on the wire is the
 * service's policy (wire-errors.ts): as they are by default.
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
  TOO_MANY_SUBSCRIPTIONS: -32054,
  METHOD_SWITCHED_OFF: -32055,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/** The message that goes with each code, and when it is answered (HTTP statuses: http-status.ts). */
export const ErrorInfo: Record<ErrorCodeValue, { message: string; meaning: string }> = {
  [ErrorCode.PARSE_ERROR]: { message: 'Parse error', meaning: 'the body is not valid JSON' },
  [ErrorCode.INVALID_REQUEST]: {
    message: 'Invalid request',
    meaning: 'not a valid request object, path/method mismatch, empty or oversized batch',
  },
  [ErrorCode.METHOD_NOT_FOUND]: { message: 'Method not found', meaning: 'no such method' },
  [ErrorCode.INVALID_PARAMS]: {
    message: 'Invalid params',
    meaning: "params fail the method's schema (failing path and rule in data)",
  },
  [ErrorCode.INTERNAL_ERROR]: {
    message: 'Internal error',
    meaning: 'a bug or unexpected failure; details are logged with the request id, never returned',
  },
  [ErrorCode.UNAUTHORIZED]: {
    message: 'Unauthorized',
    meaning: 'API keys are configured and the request has none, or a wrong one',
  },
  [ErrorCode.RATE_LIMITED]: {
    message: 'Too many requests',
    meaning: "the client's rate budget is spent; Retry-After says when to come back",
  },
  [ErrorCode.DEADLINE_EXCEEDED]: {
    message: 'Deadline exceeded',
    meaning: 'the call did not finish within the configured per-call deadline',
  },
  [ErrorCode.SHUTTING_DOWN]: {
    message: 'Server is shutting down',
    meaning: 'the server is draining and accepts no new calls',
  },
  [ErrorCode.TOO_MANY_SUBSCRIPTIONS]: {
    message: 'Too many subscriptions',
    meaning:
      'a subscribe call over the per-connection, per-client or service-wide subscription limit (data.per says which)',
  },
  [ErrorCode.METHOD_SWITCHED_OFF]: {
    message: 'Method switched off',
    meaning:
      'the operator switched the method off (perMethod.<method>.enabled: false); data.method names it. Unlike -32601, the method exists: another endpoint may serve it',
  },
};
