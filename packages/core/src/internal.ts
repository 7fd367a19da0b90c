// `@rollup-router/core/internal`: what the rollup-router packages share beyond the public
// surface (the main entry). For those packages and their tests; it follows their versions,
// with no promise of stability to anyone else.
export { bearerToken } from './bearer-token.js';
export type { EnvelopeStyle } from './envelope.js';
export { NOT_FOUND_BODY } from './http-status.js';
export { mountOptionsSchema, noParamsSchema } from './generated/schemas.js';
export { mountPrefix } from './mount-path.js';
export { OutageLog } from './outage-log.js';
export { loadOptionalPackage } from './optional-package.js';
export type { OwnedError } from './plugin-graph.js';
export { redactUrl } from './redact-url.js';
export { inSchemaOrder } from './schema-order.js';
export {
  MessageSubscriptions,
  SubscriptionRegistry,
  SubscriptionSession,
  type SubscriptionHost,
  type SubscriptionLimits,
} from './subscriptions/session.js';
export { SecretMatch } from './secret-match.js';
export { textKey } from './text-key.js';
export { basicAuthorization, withoutCredentials } from './url-credentials.js';
export { deriveWsUrl } from './ws-url.js';
