export { signatureStatusesPlugin, type SignatureStatusesPlugin } from './plugin.js';
export type {
  ExtraUpstream,
  GuardedUpstream,
  ProvidedUpstream,
  ResolvedOptions,
  SignatureStatusesHooks,
  SignatureStatusesOptions,
} from './options.js';
export type { LookupLayer, StatusesObservers, UpstreamCallOutcome } from './events.js';
export type { LookupOptions } from './status-chain.js';
export type { StatusLayer, LearnedStatus } from './layer.js';
export { getSignatureStatusesMethod } from './get-signature-statuses-method.js';
export { agaveParamsError } from './agave-params-error.js';
export { importStatuses, ImportLineError, type ImportCounts } from './import-statuses.js';
export { StatusStore, type FinalizedRecord, type StatusStoreOptions } from './store.js';
export type { SignatureStatus, TransactionError, ConfirmationStatus } from './status.js';
export {
  getSignatureStatusesParamsSchema,
  getSignatureStatusesResultSchema,
  signatureStatusSchema,
  statusesImportLineSchema,
  statusesPluginOptionsSchema,
  type GetSignatureStatusesParams,
  type GetSignatureStatusesResult,
  type StatusesImportLine,
  type StatusesPluginOptions,
  signatureSubscribeParamsSchema,
  type SignatureSubscribeParams,
} from './generated/schemas.js';
export { SignatureWatch, type PollRound, type SignatureNotification } from './signature-watch.js';
export { signatureSubscription } from './signature-subscription.js';
export { SignatureRelay } from './relay/signature-relay.js';
export { UpstreamSocket } from '@rollup-router/core/upstream-socket';
export type { StatusesRedisOption } from './options.js';
export { createRedisClient, redactRedisUrl, type RedisConnectOptions } from './redis/redis-client.js';
export { RedisLink, RedisAuthError } from './redis/redis-link.js';
export type { RedisClientLike, RedisPipelineLike } from './redis/redis-client-like.js';
export { redisOptionsSchema, type RedisOptions, type RedisOptionsResolved } from './generated/schemas.js';
