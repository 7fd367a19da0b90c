import type { RpcErrorObject } from './errors.js';
import type { WireErrorPolicy } from './wire-errors.js';

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

/** An error's response, written by the service's wire error policy (wire-errors.ts). */
export const errorJson = (id: string, error: RpcErrorObject, wire: WireErrorPolicy): string =>
  `{"jsonrpc":"2.0","error":${JSON.stringify(wire.toWire(error))},"id":${id}}`;
