export { signatureStatusesPlugin, type SignatureStatusesPlugin } from './plugin.js';
export type {
  LookupLayer,
  ResolvedOptions,
  SignatureStatusesHooks,
  SignatureStatusesOptions,
  UpstreamCallOutcome,
} from './options.js';
export type { LookupOptions } from './lookup.js';
export { getSignatureStatusesMethod } from './method.js';
export { agaveParamsError } from './agave-params-error.js';
export { importStatuses, ImportLineError, type ImportCounts } from './import-statuses.js';
export { StatusStore, type FinalizedRecord } from './store.js';
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
} from './generated/schemas.js';
