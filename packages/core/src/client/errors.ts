import { ErrorCode } from '../codes.js';

/**
 * The server's wire error policy, by its name (`WireErrorPolicy.name`): where the client reads
 * an error's cause. `'solana'`: a code Solana's clients do not know came as -32603 with the
 * cause in `data.code` (docs/wire-errors.md), and a code sent as itself is its own cause.
 * `'json-rpc'`: every code came as it is, so a -32603 is a -32603 whatever its data holds.
 */
export type WireErrorsName = 'json-rpc' | 'solana';

/**
 * The server answered the call with a JSON-RPC error. `code` and `data` are the wire's;
 * `causeCode` is the service's own code, read by the server's wire error policy
 * (`wireErrors`, the client's option; Solana's by default).
 */
export class RpcCallError extends Error {
  readonly causeCode: number;

  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
    wireErrors: WireErrorsName = 'solana',
  ) {
    super(message);
    this.name = 'RpcCallError';
    this.causeCode = wireErrors === 'solana' ? solanaCause(code, data) : code;
  }
}

/** The cause of an error Solana's wire policy wrote: a -32603's `data.code` when it has one. */
function solanaCause(code: number, data: unknown): number {
  const inData = (data as { code?: unknown } | null | undefined)?.code;
  return code === ErrorCode.INTERNAL_ERROR && typeof inData === 'number' ? inData : code;
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
