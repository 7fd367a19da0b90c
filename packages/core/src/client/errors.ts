import { ErrorCode } from '../codes.js';

/**
 * The server answered the call with a JSON-RPC error. `code` and `data` are the wire's;
 * `causeCode` is the service's own code: a service with Solana's wire policy sends a code
 * Solana's clients do not know as -32603 with the cause in `data.code` (docs/error-codes.md),
 * so it is that, else `code` (a plain JSON-RPC service sends its codes as they are).
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
    this.causeCode = code === ErrorCode.INTERNAL_ERROR && typeof inData === 'number' ? inData : code;
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
