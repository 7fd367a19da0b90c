import { CLIENT_FALLBACK_CODE, clientsCanRead } from './codes.js';
import type { RpcErrorObject } from './errors.js';

/**
 * How a success is written. The specification's path-style endpoints carry
 * `"error": null` for some methods; JSON-RPC 2.0 (and so @solana/kit and web3.js,
 * which throw on it) forbids `result` and `error` together, so the root never does.
 */
export type EnvelopeStyle = 'specification' | 'strict';

// Member order is Agave's (`jsonrpc`, `result`|`error`, `id`), which the wire contract
// quotes byte for byte. Responses are assembled from strings because the id may be
// source text that no JS value holds.
export const successJson = (id: string, result: string, errorNull: boolean): string =>
  errorNull
    ? `{"jsonrpc":"2.0","result":${result},"error":null,"id":${id}}`
    : `{"jsonrpc":"2.0","result":${result},"id":${id}}`;

export const errorJson = (id: string, error: RpcErrorObject): string =>
  `{"jsonrpc":"2.0","error":${JSON.stringify(wireError(error))},"id":${id}}`;

/**
 * An error as every endpoint and the socket send it (docs/error-codes.md): a code Solana's
 * clients know goes as it is; any other (the core's -32050.., plugins' -32060.., an
 * upstream's own) goes as -32603 with its message kept and the code in `data.code`, beside
 * data's own keys. Data that is no plain object, or has a `code` of its own, goes in
 * `data.detail`. Logs and metrics keep the cause's code: only the wire changes.
 */
export function wireError(error: RpcErrorObject): RpcErrorObject {
  const { code, message, data } = error;
  if (clientsCanRead(code, data)) return error;
  return { code: CLIENT_FALLBACK_CODE, message, data: causeData(code, data) };
}

function causeData(code: number, data: unknown): Record<string, unknown> {
  if (data === undefined) return { code };
  const plain =
    typeof data === 'object' && data !== null && !Array.isArray(data) && !Object.hasOwn(data, 'code');
  return plain ? { code, ...data } : { code, detail: data };
}
