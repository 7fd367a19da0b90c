export { delegationRouterPlugin, type DelegationRouterPlugin } from './plugin.js';
export type { DelegationRouterHooks, DelegationRouterPluginOptions } from './options.js';
export { DelegationError } from './errors.js';
export { Routing } from './routing.js';
export { DelegationSource } from './delegation/delegation-source.js';
export {
  decodeDelegationRecord,
  encodeDelegationRecord,
  DELEGATION_PROGRAM_ID,
  DELEGATION_RECORD_SEED,
  DELEGATION_RECORD_SIZE,
  type DecodedDelegation,
  type DelegationRecord,
} from './delegation/record-codec.js';
export { delegationRecordAddress } from './delegation/record-address.js';
export {
  SharedDelegations,
  delegationKey,
  type SharedDelegationsClient,
  type SharedRead,
} from './delegation/shared-delegations.js';
export { decodeWireTransaction, type RoutedTransaction } from './transaction/decode-transaction.js';
export { BASE_CHAIN_NAME, type Upstream } from './upstream/upstream.js';
export { OTHER_ER_LABEL, UpstreamLabels } from './upstream/upstream-labels.js';
export type { RelayCounts } from './subscriptions/relay-counts.js';
export type { SentObserver } from './methods/send-transaction.js';
export {
  delegationRouterOptionsSchema,
  type DelegationRouterOptions,
  type DelegationRouterOptionsResolved,
} from './generated/schemas.js';
export {
  METHOD_TABLE,
  type ReplyClass,
  type Route,
  type TableEntry,
  type TableMethod,
} from './methods/method-table.js';
export {
  SUBSCRIPTION_TABLE,
  type NotifiedShape,
  type SubscriptionEntry,
  type SubscriptionRoute,
  type TableSubscription,
} from './subscriptions/subscription-table.js';
export type { RouteNode, RouteTable } from './upstream/er-directory.js';
