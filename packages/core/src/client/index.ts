// `@rollup-router/core/client`: the typed client alone, without the server (no Express,
// no pino, no Ajv beyond the response check): what an embedder's callers import.
export {
  createClient,
  type ApiMap,
  type BatchBuilder,
  type BatchCall,
  type Client,
  type ClientOptions,
  type MethodMap,
  type ParamsOf,
  type ResultOf,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionMap,
} from './typed-client.js';
export type { ApiOf } from './api-of.js';
export { RpcCallError, RpcNoAnswerError, type NoAnswerKind, type WireErrorsName } from './errors.js';
export type { CallOptions, Settled } from './link.js';
