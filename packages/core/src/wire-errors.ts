import type { RpcErrorObject } from './errors.js';
import type { Plugin } from './plugin.js';

/**
 * How a service writes its errors on the wire: one rule for every error it sends (its
 * plugins', the embedder's own methods', the core's refusals), over HTTP and WebSocket,
 * since one client reads them all. Logs, metrics and rpc.discover keep the cause's code:
 * only the wire changes. Policies are compared by identity: share one object.
 */
export interface WireErrorPolicy {
  /** Named in build errors and docs. */
  readonly name: string;
  /** The error as it is sent, from the error as it was raised. */
  readonly toWire: (error: RpcErrorObject) => RpcErrorObject;
}

/** Plain JSON-RPC 2.0: every code goes as it is. The default of a service no plugin asks otherwise of. */
export const jsonRpcWireErrors: WireErrorPolicy = Object.freeze({
  name: 'json-rpc',
  toWire: (error: RpcErrorObject) => error,
});

/**
 * The service's policy: the embedder's `explicit` one when given (it wins over its plugins'),
 * else the one its plugins install, else plain JSON-RPC 2.0. Two plugins installing different
 * policies cannot both hold: the build is refused, naming them.
 */
export function resolveWireErrors(
  explicit: WireErrorPolicy | undefined,
  plugins: readonly Plugin[],
): WireErrorPolicy {
  if (explicit !== undefined) return explicit;
  const installer = plugins.find((p) => p.wireErrors !== undefined);
  if (installer?.wireErrors === undefined) return jsonRpcWireErrors;
  const installed = installer.wireErrors;
  const other = plugins.find((p) => p.wireErrors !== undefined && p.wireErrors !== installed);
  if (other?.wireErrors !== undefined) {
    throw new Error(
      `plugin "${installer.name}" installs the wire error policy "${installed.name}" and plugin ` +
        `"${other.name}" installs "${other.wireErrors.name}": a service sends its errors by one rule; ` +
        'choose one with the service option wireErrors',
    );
  }
  return installed;
}
