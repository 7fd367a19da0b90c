import { CLIENT_FALLBACK_CODE } from '../codes.js';

/**
 * The server answered the call with a JSON-RPC error. `code` and `data` are the wire's;
 * `causeCode` is the router's own code: a code clients do not know arrives as -32603 with the
 * cause in `data.code` (docs/error-codes.md), so `cause` is that, else `code`.
 */
export class RpcCallError extends Error {
  readonly causeCode: number;

  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'RpcCallError';
    const inData = (data as { code?: unknown } | null | undefined)?.code;
    this.causeCode = code === CLIENT_FALLBACK_CODE && typeof inData === 'number' ? inData : code;
  }
}

/** Why no answer came: the deadline passed, the caller aborted, no connection, or a reply that is not JSON-RPC. */
export type NoAnswerKind = 'timeout' | 'aborted' | 'unreachable' | 'bad_reply' | 'closed';

/** The call got no JSON-RPC answer (it may still have run on the server, except when unreachable). */
export class RpcNoAnswerError extends Error {
  constructor(
    readonly method: string,
    readonly kind: NoAnswerKind,
    detail: string,
  ) {
    super(`${method}: ${kind}: ${detail}`);
    this.name = 'RpcNoAnswerError';
  }
}
