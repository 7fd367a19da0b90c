// The public surface: what embedders and plugin authors use (docs/writing-a-plugin.md lists
// what a plugin author's own code needs). ./internal.ts holds what only the reference
// server shares with core, and is no API.
export { ErrorCode, ErrorInfo, type ErrorCodeName, type ErrorCodeValue } from './codes.js';
export { RpcError, type RpcErrorObject, type ValidationFailure } from './errors.js';
export type { CallContext, CallOrigin } from './call-context.js';
export type { CallEnding } from './call.js';
export { RawJson } from './raw-json.js';
export { emitGuarded } from './observers.js';
export {
  JsonRpcClient,
  type JsonRpcAnswered,
  type JsonRpcCall,
  type JsonRpcNoAnswer,
  type JsonRpcClientOptions,
  type JsonRpcOutcome,
  type JsonRpcReplyProblem,
} from './jsonrpc-client.js';
export type { UpstreamCallObserver, UpstreamCallOutcome } from './upstream-call.js';
export { loadOptionalPackage, MissingPackageError } from './optional-package.js';
export {
  AddressGuard,
  AddressRefusedError,
  refusedRange,
  type AddressGuardOptions,
} from './address-guard.js';
export {
  defineMethod,
  defineMethodFromSchemas,
  type AnyMethodDefinition,
  type MaybePromise,
  type MethodDefinition,
  type MethodHandler,
  type Schema,
} from './method.js';
export { jsonRpcWireErrors, type WireErrorPolicy } from './wire-errors.js';
export { defineErrors, definePlugin, type DeclaredError, type Plugin, type PluginContext } from './plugin.js';
export { checkPlugin } from './check-definitions.js';
export { addSchemaKeyword, compileSchema, type Validator } from './validation.js';
export { validateOptions } from './validate-options.js';
export { closestName } from './closest-name.js';
export { explainFailure, schemaAt } from './explain-failure.js';
export {
  createRpc,
  Rpc,
  type ContextFunction,
  type DispatchOptions,
  type DispatchScope,
  type HostRequest,
  type RpcOptions,
} from './rpc.js';
export type { Guard } from './guard.js';
export type { CallEvent, DispatchPolicy } from './dispatcher.js';
export type { BodyText, HttpExchange, HttpReply } from './exchange.js';
export {
  BODY_CONSUMED,
  BODY_TOO_LARGE,
  CLIENT_GONE,
  HOST_BODY_TOO_LARGE,
  HOST_BODY_UNPARSABLE,
} from './exchange.js';
export type { TrustProxy } from './client-address.js';
export type { DispatchTarget, MountOptions } from './http-handler.js';
export { getHttpStatusCode, HttpRefusal, type HttpRefusalName } from './http-status.js';
export { createLogger, flushQuietly, logDestination, REDACTED_PATHS, type LoggerOptions } from './logger.js';
export type { OpenRpcDocument, OpenRpcMethod, OpenRpcContentDescriptor } from './discovery.js';
export { createNodeListener, type NodeListenerOptions } from './adapters/node.js';
export type { CoreOptions, JsonrpcRequest, JsonrpcResponse } from './generated/schemas.js';
export { coreOptionsSchema, jsonrpcRequestSchema, jsonrpcResponseSchema } from './generated/schemas.js';
export { attachWebSocket, WebSocketTransport, type WebSocketOptions } from './adapters/websocket.js';
export {
  defineSubscription,
  type AnySubscriptionDefinition,
  type SubscriptionDefinition,
  type StopSubscription,
  type SubscriptionSink,
} from './subscriptions/definition.js';
export { SerializedResult } from './subscriptions/serialized-result.js';
export type { AccessRules } from './rpc.js';
export type { OpenRpcSubscription } from './discovery.js';
export type { RateBudget, RateLimit, RateLimiterFactory, RateLimiterLike } from './rate-limit.js';
export type { ApiKeyEntry, KeyAccount } from './api-keys.js';
export type { KeyCharge } from './admission.js';
export { UPSTREAM_HEADER } from './upstream-header.js';
export {
  Forwarder,
  forwardedMethods,
  type ForwardCall,
  type ForwardedMethod,
  type ForwarderOptions,
  type ForwardTarget,
} from './forwarding.js';
export {
  ProviderSet,
  type Provider,
  type ProviderAsk,
  type ProviderAttemptObserver,
  type ProviderCall,
  type ProviderHealth,
  type ProviderSetOptions,
  type ProviderState,
} from './provider-set.js';
export { elementTexts, memberText, resultText } from './result-text.js';
// The plugin kit: what our plugins use and any plugin author may (docs/writing-a-plugin.md).
export { noParamsSchema } from './generated/schemas.js';
export { inSchemaOrder } from './schema-order.js';
export { OutageLog } from './outage-log.js';
export { redactUrl } from './redact-url.js';
