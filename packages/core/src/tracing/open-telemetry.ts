import type * as Api from '@opentelemetry/api';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtelCore from '@opentelemetry/core';
import type * as ExporterProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTrace from '@opentelemetry/sdk-trace';
import type * as Semconv from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { MessageScope } from '../call.js';
import type { CoreOptionsResolved } from '../generated/schemas.js';
import { loadOptionalPackage } from '../optional-package.js';
import type { UpstreamCallOutcome } from '../upstream-call.js';
import type { BatchSpan, CallSpan, CallTracing, TracedCall } from './call-tracing.js';
import { samplerFromEnv } from './sampler-from-env.js';
import { setUpstreamSpanStarter, type UpstreamSpan } from './upstream-spans.js';

export type TracingOptions = CoreOptionsResolved['tracing'];

const NEEDED_BY = 'core option /tracing/enabled is true';
const DEFAULT_SERVICE_NAME = 'rollup-router';
const INSTRUMENTATION = '@rollup-router/core';

// Experimental attributes of @opentelemetry/semantic-conventions 1.45.0, copied as its README
// asks (its incubating entry point may change them in any minor release).
const ATTR_JSONRPC_PROTOCOL_VERSION = 'jsonrpc.protocol.version';
const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
const ATTR_SERVICE_PEER_NAME = 'service.peer.name';
/** No convention names a batch's length; this attribute is ours. */
const ATTR_BATCH_LENGTH = 'rollup_router.batch.length';
const JSONRPC = 'jsonrpc';
/** rpc.method of a method the service does not serve (the client's name goes to rpc.method_original). */
const OTHER_METHOD = '_OTHER';

interface Modules {
  readonly api: typeof Api;
  readonly sdk: typeof SdkTrace;
  readonly semconv: typeof Semconv;
}

/**
 * OpenTelemetry tracing over the SDK, loaded now (never when tracing is off): a tracer
 * provider of its own with the OTLP/HTTP protobuf exporter, W3C trace context read from the
 * client's headers, and an AsyncLocalStorage context manager so the upstream calls a
 * handler makes find its span. Undefined when OTEL_SDK_DISABLED says so.
 */
export function openTelemetryTracing(
  options: TracingOptions,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): CallTracing | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') {
    log.warn('tracing is enabled but OTEL_SDK_DISABLED=true: no traces are recorded');
    return undefined;
  }
  const load = <T>(name: string): T => loadOptionalPackage<T>(import.meta.url, name, NEEDED_BY);
  const api = load<typeof Api>('@opentelemetry/api');
  const sdk = load<typeof SdkTrace>('@opentelemetry/sdk-trace');
  const semconv = load<typeof Semconv>('@opentelemetry/semantic-conventions');
  const { AsyncLocalStorageContextManager } = load<typeof ContextAsyncHooks>(
    '@opentelemetry/context-async-hooks',
  );
  const { W3CTraceContextPropagator, getNumberFromEnv } = load<typeof OtelCore>('@opentelemetry/core');
  const resources = load<typeof Resources>('@opentelemetry/resources');
  const { OTLPTraceExporter } = load<typeof ExporterProto>('@opentelemetry/exporter-trace-otlp-proto');

  // A host that registered its own context manager (its SDK) keeps it: it serves us as well.
  const manager = new AsyncLocalStorageContextManager().enable();
  if (!api.context.setGlobalContextManager(manager)) manager.disable();

  let resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  if (options.serviceName !== undefined) {
    resource = resource.merge(
      resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: options.serviceName }),
    );
  }
  const sampler =
    options.samplingRatio === undefined
      ? samplerFromEnv(sdk, env, log)
      : new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(options.samplingRatio) });
  const exporter = new OTLPTraceExporter(options.endpoint === undefined ? {} : { url: options.endpoint });
  const provider = new sdk.TracerProvider({
    resource,
    sampler,
    spanProcessors: [
      // The batch settings the OpenTelemetry specification reads from the environment.
      new sdk.BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY'),
        exportTimeoutMillis: getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT'),
        maxQueueSize: getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE'),
        maxExportBatchSize: getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      }),
    ],
  });
  const tracing = new OpenTelemetryTracing({ api, sdk, semconv }, provider, new W3CTraceContextPropagator());
  setUpstreamSpanStarter(OpenTelemetryTracing.upstreamStarter(api));
  return tracing;
}

/** The call span a context belongs to: its upstream calls are its children, made by its tracing's provider. */
let callKey: symbol | undefined;

class OpenTelemetryTracing implements CallTracing {
  private readonly tracer: Api.Tracer;
  private readonly key: symbol;

  constructor(
    private readonly m: Modules,
    private readonly provider: SdkTrace.TracerProvider,
    private readonly propagator: Api.TextMapPropagator,
  ) {
    this.tracer = provider.getTracer(INSTRUMENTATION);
    this.key = callKey ??= m.api.createContextKey('rollup-router call');
  }

  /**
   * Starts upstream spans under the current context's call while it is under way. Work a
   * call started that outlives it (a timer, a poll loop it woke) carries its context on,
   * but is no longer its work: it gets no span.
   */
  static upstreamStarter(api: typeof Api) {
    return (upstream: string, method: string, id: number): UpstreamSpan | undefined => {
      if (callKey === undefined) return undefined;
      const active = api.context.active();
      const call = active.getValue(callKey) as OpenTelemetryCallSpan | undefined;
      return call?.underWay === true ? call.tracing.upstream(active, upstream, method, id) : undefined;
    };
  }

  batch(scope: MessageScope, length: number): BatchSpan {
    const { api, semconv } = this.m;
    const parent = this.parentOf(scope);
    const span = this.tracer.startSpan(
      'batch',
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          [semconv.ATTR_RPC_SYSTEM_NAME]: JSONRPC,
          [ATTR_BATCH_LENGTH]: length,
          ...this.peerOf(scope),
        },
        links: this.linksOf(scope),
      },
      parent,
    );
    return new OpenTelemetryBatchSpan(span, api.trace.setSpan(parent, span));
  }

  call(scope: MessageScope, batch: BatchSpan | undefined, call: TracedCall): CallSpan {
    const { api, semconv } = this.m;
    const inBatch = batch instanceof OpenTelemetryBatchSpan ? batch : undefined;
    const parent = inBatch?.context ?? this.parentOf(scope);
    const attributes: Api.Attributes = {
      [semconv.ATTR_RPC_SYSTEM_NAME]: JSONRPC,
      [semconv.ATTR_RPC_METHOD]: call.known ? call.method : OTHER_METHOD,
      [ATTR_JSONRPC_PROTOCOL_VERSION]: '2.0',
    };
    if (!call.known) attributes[semconv.ATTR_RPC_METHOD_ORIGINAL] = call.method;
    if (call.id !== undefined) attributes[ATTR_JSONRPC_REQUEST_ID] = call.id;
    const span = this.tracer.startSpan(
      call.known ? call.method : JSONRPC,
      {
        // A batch's request is the server span; its calls are work inside it.
        kind: inBatch ? api.SpanKind.INTERNAL : api.SpanKind.SERVER,
        attributes: inBatch ? attributes : { ...attributes, ...this.peerOf(scope) },
        links: inBatch ? undefined : this.linksOf(scope),
      },
      parent,
    );
    return new OpenTelemetryCallSpan(this, this.m, span, api.trace.setSpan(parent, span), this.key);
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  /** A client span under `active`'s call. */
  upstream(active: Api.Context, upstream: string, method: string, id: number): UpstreamSpan {
    const { api, semconv } = this.m;
    const span = this.tracer.startSpan(
      method,
      {
        kind: api.SpanKind.CLIENT,
        attributes: {
          [semconv.ATTR_RPC_SYSTEM_NAME]: JSONRPC,
          [semconv.ATTR_RPC_METHOD]: method,
          [ATTR_JSONRPC_PROTOCOL_VERSION]: '2.0',
          [ATTR_JSONRPC_REQUEST_ID]: String(id),
          // The upstream's name, never its URL (which may carry credentials): as logs and metrics.
          [ATTR_SERVICE_PEER_NAME]: upstream,
        },
      },
      active,
    );
    return new OpenTelemetryUpstreamSpan(this.m, span);
  }

  /**
   * The client's trace over HTTP (its `traceparent`); over a WebSocket, a new trace per
   * message: the upgrade's `traceparent` is the connection's, not each call's, so it is a link.
   */
  private parentOf(scope: MessageScope): Api.Context {
    const { api } = this.m;
    if (scope.session !== undefined) return api.ROOT_CONTEXT;
    return this.propagator.extract(api.ROOT_CONTEXT, scope.origin.headers, api.defaultTextMapGetter);
  }

  private linksOf(scope: MessageScope): Api.Link[] | undefined {
    const { api } = this.m;
    if (scope.session === undefined) return undefined;
    const upgrade = this.propagator.extract(api.ROOT_CONTEXT, scope.origin.headers, api.defaultTextMapGetter);
    const context = api.trace.getSpanContext(upgrade);
    return context !== undefined && api.isSpanContextValid(context) ? [{ context }] : undefined;
  }

  private peerOf(scope: MessageScope): Api.Attributes {
    const { remoteAddress } = scope.origin;
    return remoteAddress === undefined ? {} : { [this.m.semconv.ATTR_NETWORK_PEER_ADDRESS]: remoteAddress };
  }
}

class OpenTelemetryBatchSpan implements BatchSpan {
  constructor(
    private readonly span: Api.Span,
    readonly context: Api.Context,
  ) {}

  end(): void {
    this.span.end();
  }
}

class OpenTelemetryCallSpan implements CallSpan {
  underWay = true;
  private readonly context: Api.Context;

  constructor(
    readonly tracing: OpenTelemetryTracing,
    private readonly m: Modules,
    private readonly span: Api.Span,
    withSpan: Api.Context,
    key: symbol,
  ) {
    this.context = withSpan.setValue(key, this);
  }

  run<T>(work: () => T): T {
    return this.m.api.context.with(this.context, work);
  }

  end(code: number, message: string | undefined): void {
    this.underWay = false;
    if (code !== 0) failed(this.m, this.span, String(code), message, true);
    this.span.end();
  }
}

class OpenTelemetryUpstreamSpan implements UpstreamSpan {
  constructor(
    private readonly m: Modules,
    private readonly span: Api.Span,
  ) {}

  end(outcome: UpstreamCallOutcome, error?: { readonly code: number; readonly message: string }): void {
    if (outcome === 'rpc_error' && error !== undefined) {
      failed(this.m, this.span, String(error.code), error.message, true);
    } else if (outcome !== 'ok') {
      failed(this.m, this.span, outcome, undefined, false);
    }
    this.span.end();
  }
}

/**
 * A failed call's attributes: a JSON-RPC error's code is its rpc.status_code and its
 * error.type, its message the span status's description; a call that got no answer has
 * its outcome (timeout, unreachable, bad_response, aborted) as error.type.
 */
function failed(
  m: Modules,
  span: Api.Span,
  type: string,
  message: string | undefined,
  answered: boolean,
): void {
  const { semconv, api } = m;
  if (answered) span.setAttribute(semconv.ATTR_RPC_STATUS_CODE, type);
  span.setAttribute(semconv.ATTR_ERROR_TYPE, type);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}
