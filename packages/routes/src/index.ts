export { routesPlugin, type RoutesPlugin } from './plugin.js';
export { RouteRegistry, type RoutesOptions, type RoutesSnapshot } from './registry.js';
export { getRoutesMethod } from './get-routes-method.js';
export type { RouteSource, SourceReadiness } from './sources/route-source.js';
export { RouteListError, type RouteIssue } from './route-list-error.js';
export type { NodeHealth, NodeOrigin, NodeStatus, ProbeReport } from './node-status.js';
export type { ProbeFailureKind } from './health/probe.js';
export type { RouteEntry, RouteList } from './generated/schemas.js';
export {
  routeEntrySchema,
  routeListSchema,
  routeListHttpsSchema,
  routesParamsSchema,
  routesPluginOptionsSchema,
  type RoutesParams,
  type RoutesPluginOptions,
} from './generated/schemas.js';
export {
  decodeErRecord,
  encodeErRecord,
  ER_RECORD_SEED,
  ER_STATUSES,
  MDP_PROGRAM_ID,
  type DecodedRecord,
  type ErRecordV0,
  type ErStatus,
} from './chain/er-record-codec.js';
export { deriveWsUrl } from '@rollup-router/solana';
export type { ChainRecordsReport } from './chain/chain-route-source.js';
