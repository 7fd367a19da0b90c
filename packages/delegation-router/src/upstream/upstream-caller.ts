import {
  Forwarder,
  type ForwarderOptions,
  type JsonRpcClient,
  type PluginContext,
} from '@rollup-router/core';
import { DelegationError } from '../errors.js';
import type { Upstream } from './upstream.js';

/**
 * Calls the base chain and the ERs (core's Forwarder with this plugin's codes): an
 * upstream's own JSON-RPC error reaches the caller unchanged; no usable answer is -32071
 * naming the upstream (`base-chain`, `er:<identity>`) and the kind of failure, never its
 * URL; a reply past its cap is -32076. A call's provenance names the upstream by its label
 * (UpstreamLabels): `base-chain`, `er:<identity>` or `er:other`.
 */
export type UpstreamCaller = Forwarder<Upstream>;

export const upstreamCaller = (
  client: JsonRpcClient,
  timeoutMs: number,
  log: () => PluginContext['log'] | undefined = () => undefined,
  observe?: ForwarderOptions<Upstream>['observe'],
  labelOf?: ForwarderOptions<Upstream>['labelOf'],
): UpstreamCaller =>
  new Forwarder<Upstream>(client, {
    timeoutMs,
    errors: { unavailable: DelegationError.UPSTREAM_UNAVAILABLE, tooLarge: DelegationError.REPLY_TOO_LARGE },
    log,
    observe,
    labelOf,
  });
