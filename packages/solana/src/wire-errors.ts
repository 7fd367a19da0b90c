import { ErrorCode, type RpcErrorObject, type WireErrorPolicy } from '@rollup-router/core';

/**
 * The codes Solana's clients can read: JSON-RPC's own and Solana's server errors, the
 * table of @solana/kit's errors (8.x; its development build throws a TypeError on any
 * other code, and over WebSocket that throw is uncaught and kills the client process).
 * web3.js 1.x reads any code; these are the ones it names too.
 */
export const SOLANA_CLIENT_CODES: ReadonlySet<number> = new Set([
  ErrorCode.PARSE_ERROR,
  ErrorCode.INVALID_REQUEST,
  ErrorCode.METHOD_NOT_FOUND,
  ErrorCode.INVALID_PARAMS,
  ErrorCode.INTERNAL_ERROR,
  ...Array.from({ length: 21 }, (_, i) => -32001 - i),
]);

// kit reads -32002 (preflight failure) by destructuring `data`: without an object there it throws.
const PREFLIGHT_FAILURE = -32002;

/** Whether Solana's clients can read an error with this code and data as it is. */
function clientsCanRead(code: number, data: unknown): boolean {
  if (!SOLANA_CLIENT_CODES.has(code)) return false;
  return code !== PREFLIGHT_FAILURE || (typeof data === 'object' && data !== null);
}

/**
 * What an error clients cannot read is sent as, its cause in `data.code`. kit reads -32603
 * as "Internal JSON-RPC error (<our message>)"; of the other codes it knows, some replace
 * our message with a fixed text and some say something false (-32005: "Node is unhealthy;
 * behind by undefined slots").
 */
const CLIENT_FALLBACK_CODE = ErrorCode.INTERNAL_ERROR;

/**
 * Solana's wire error policy (docs/error-codes.md), installed by the Solana plugins for the
 * service they are mounted in: a code Solana's clients know goes as it is; any other (the
 * core's -32050.., plugins' -32060.., an embedder's, an upstream's own) goes as -32603 with
 * its message kept and the code in `data.code`, beside data's own keys. Data that is no
 * plain object, or has a `code` of its own, goes in `data.detail`.
 */
export const solanaWireErrors: WireErrorPolicy = Object.freeze({
  name: 'solana',
  toWire(error: RpcErrorObject): RpcErrorObject {
    const { code, message, data } = error;
    if (clientsCanRead(code, data)) return error;
    return { code: CLIENT_FALLBACK_CODE, message, data: causeData(code, data) };
  },
});

function causeData(code: number, data: unknown): Record<string, unknown> {
  if (data === undefined) return { code };
  const plain =
    typeof data === 'object' && data !== null && !Array.isArray(data) && !Object.hasOwn(data, 'code');
  return plain ? { code, ...data } : { code, detail: data };
}
