import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Admission, refusalData, type KeyCharge, type Refusal } from './admission.js';
import { ApiKeys, type KeyAccount } from './api-keys.js';
import type { MessageScope } from './call.js';
import { CallLog } from './call-log.js';
import type { CallOrigin } from './call-context.js';
import { Cors } from './cors.js';
import { buildOpenRpcDocument, type OpenRpcDocument } from './discovery.js';
import { Dispatcher, type CallEvent, type DispatchPolicy } from './dispatcher.js';
import type { HttpExchange, HttpReply } from './exchange.js';
import {
  coreOptionsSchema,
  noParamsSchema,
  type CoreOptions,
  type CoreOptionsResolved,
} from './generated/schemas.js';
import { errorJson } from './envelope.js';
import { RpcError } from './errors.js';
import { HttpHandler, type DispatchTarget, type MountOptions } from './http-handler.js';
import { getHttpStatusCode, HttpRefusal } from './http-status.js';
import { parseBody, type ExactIds } from './exact-ids.js';
import { createLogger } from './logger.js';
import type { Guard } from './guard.js';
import { defineMethod, type AnyMethodDefinition } from './method.js';
import { resolvePlugins, type OwnedError } from './plugin-graph.js';
import type { Plugin } from './plugin.js';
import { PerMethod } from './per-method.js';
import { RateLimit, type RateBudget, type RateLimiterFactory, type RateLimiterLike } from './rate-limit.js';
import { RawJson } from './raw-json.js';
import { clientAddressOf, trustProxySetting, type ClientAddressOf } from './client-address.js';
import type { AnySubscriptionDefinition } from './subscriptions/definition.js';
import { SubscriptionRegistry, type SubscriptionHost } from './subscriptions/session.js';
import type { CallTracing } from './tracing/call-tracing.js';
import { openTelemetryTracing } from './tracing/open-telemetry.js';
import { validateOptions } from './validate-options.js';
import { resolveWireErrors, type WireErrorPolicy } from './wire-errors.js';

/**
 * `C` is the host's context type: what `context` makes of a request, what every
 * handler and guard reads as `ctx.host`. Without `context` it is `undefined`, and a
 * plugin or method that reads a context does not fit.
 */
export interface RpcOptions<C = undefined> extends CoreOptions {
  /** Plugins whose methods read no context fit a service of any `C`. */
  readonly plugins?: readonly Plugin<NoInfer<C>>[];
  /** Methods of the embedder's own, beside the plugins'. */
  readonly methods?: readonly AnyMethodDefinition<NoInfer<C>>[];
  /**
   * Makes the host's context (`ctx.host`) from the host's request: once per HTTP request
   * (every call of a batch shares it), once per WebSocket connection from its upgrade
   * request. May return a promise; a throw answers the request (or refuses the upgrade)
   * with the thrown RpcError, anything else with -32603 (logged). The Express adapter
   * takes its own (`expressRpc(rpc, { context: (req, res) => ... })`), typed with
   * Express's request; an embedder's own transport passes `context` to `rpc.dispatch`.
   */
  readonly context?: ContextFunction<C>;
  readonly logger?: Logger;
  /** A rate-limiter-flexible limiter for the client addresses' budget instead of the in-memory one (e.g. RateLimiterRedis). */
  readonly rateLimiter?: RateLimiterLike;
  /**
   * Makes the store of each budget, the addresses' (unless `rateLimiter` is given) and each
   * API key's own, instead of the in-memory one: e.g. a RateLimiterRedis, so that several
   * instances count one budget. Default: rate-limiter-flexible's memory store.
   */
  readonly rateLimiterFor?: RateLimiterFactory;
  /**
   * How every error of the service goes on the wire, the embedder's own methods' included
   * (wire-errors.ts). Unset: the policy its plugins install (the Solana plugins install
   * `@rollup-router/solana`'s `solanaWireErrors`), else plain JSON-RPC 2.0 (`jsonRpcWireErrors`).
   */
  readonly wireErrors?: WireErrorPolicy;
}

/**
 * A built JSON-RPC service: plugins resolved, schemas compiled, nothing listening.
 * Adapters (node:http, Express, others) give it requests through `target` and `handle`.
 */
export class Rpc<C = undefined> {
  readonly logger: Logger;
  readonly options: CoreOptionsResolved;
  private readonly plugins: Plugin[];
  private readonly methodList: AnyMethodDefinition[];
  private readonly errorList: OwnedError[];
  /** The operator's costs and switches per method. */
  private readonly perMethod: PerMethod;
  private readonly dispatcher: Dispatcher;
  private readonly http: HttpHandler;
  private readonly tracing: CallTracing | undefined;
  /** The access rules every transport applies, from the one set of options. */
  readonly access: AccessRules;
  /** Every connection's subscriptions: ids, totals and limits. */
  readonly subscriptions: SubscriptionRegistry;
  private readonly started: Plugin[] = [];
  private starting: Promise<void> | undefined;
  /** True once the plugins started: the hot path checks one flag, not a promise. */
  private running = false;
  private stopped = false;
  private warnedAutoStart = false;
  private document: OpenRpcDocument | undefined;
  /** The service's `context` function, for the adapters; undefined when none was given. */
  readonly context: ContextFunction<C> | undefined;
  /** How the service writes its errors on the wire: the option's, its plugins', or plain JSON-RPC 2.0. */
  readonly wireErrors: WireErrorPolicy;

  constructor(options: RpcOptions<C> = {}) {
    const {
      plugins = [],
      methods = [],
      logger,
      rateLimiter,
      rateLimiterFor,
      context,
      wireErrors,
      ...json
    } = options;
    this.context = context;
    this.options = validateOptions<CoreOptionsResolved>(
      coreOptionsSchema,
      json,
      'rollup-router core options',
    );
    this.logger = logger ?? createLogger();
    const resolved = resolvePlugins(
      plugins as readonly Plugin[],
      methods as readonly AnyMethodDefinition[],
      this.options.discovery ? [this.discoverMethod()] : [],
    );
    this.plugins = resolved.ordered;
    this.methodList = resolved.methods;
    this.errorList = resolved.errors;
    this.wireErrors = resolveWireErrors(wireErrors, this.plugins);
    const { limits, rateLimit } = this.options;
    this.perMethod = PerMethod.forService(this.options.perMethod, this.methodNames);
    const trust = trustProxySetting(json.trustProxy, rateLimit === false ? undefined : rateLimit.trustProxy);
    for (const warning of trust.warnings) this.logger.warn(warning);
    const clientAddress = clientAddressOf(trust.trust);
    const admission = this.admissionOf(clientAddress, rateLimiter, rateLimiterFor);
    this.access = { cors: new Cors(this.options.cors, this.plugins), admission, clientAddress };
    this.tracing = this.options.tracing.enabled
      ? openTelemetryTracing(this.options.tracing, this.logger.child({ part: 'tracing' }))
      : undefined;
    this.dispatcher = this.dispatcherOf(admission);
    this.http = new HttpHandler(
      this.dispatcher,
      { maxBodyBytes: limits.maxBodyBytes, cors: this.access.cors, admission },
      this.logger,
    );
    const { maxSubscriptionsPerConnection, maxSubscriptionsPerClient, maxSubscriptions } =
      this.options.websocket;
    this.subscriptions = new SubscriptionRegistry({
      perConnection: maxSubscriptionsPerConnection,
      perClient: maxSubscriptionsPerClient,
      total: maxSubscriptions,
    });
  }

  private dispatcherOf(admission: Admission): Dispatcher {
    const pluginGuards = pluginGuardsByMethod(this.plugins);
    const { limits } = this.options;
    return new Dispatcher(this.methodList, {
      maxBatchLength: limits.maxBatchLength,
      callDeadlineMs: limits.callDeadlineMs,
      validateResults: this.options.validateResults,
      callLog: new CallLog(this.options.callLog),
      admission,
      pluginGuardOf: (name) => pluginGuards.get(name),
      perMethod: this.perMethod,
      tracing: this.tracing,
      wireErrors: this.wireErrors,
    });
  }

  /** The one admission step: the addresses' budget, each API key's own, and what each method costs. */
  private admissionOf(
    clientAddress: ClientAddressOf,
    rateLimiter: RateLimiterLike | undefined,
    rateLimiterFor: RateLimiterFactory | undefined,
  ): Admission {
    const { rateLimit, apiKeys } = this.options;
    const budget = (b: RateBudget, keyPrefix: string, option: string): RateLimit =>
      rateLimiterFor ? new RateLimit(rateLimiterFor(b, keyPrefix)) : RateLimit.inMemory(b, option);
    const addresses = rateLimiter
      ? new RateLimit(rateLimiter)
      : rateLimit
        ? budget(rateLimit, 'rate', '/rateLimit')
        : undefined;
    const keys = new ApiKeys(apiKeys, (b) => budget(b, 'rate-key', '/apiKeys/[]/rateLimit'));
    return new Admission(clientAddress, addresses, keys, this.perMethod, this.logger);
  }

  /**
   * Adds a guard every call passes (each call of a batch, over every transport), before
   * its plugin's and its method's: it admits by returning, refuses by throwing an
   * RpcError (guard.ts). Guards run in the order added, inside the admission step.
   */
  guard(guard: Guard<C>): this {
    this.access.admission.addGuard(guard as Guard);
    return this;
  }

  /** Names of every method served, in registration order. */
  get methodNames(): string[] {
    return this.methodList.map((m) => m.name);
  }

  /**
   * Starts the plugins' background work, dependencies first; on a failure stops what
   * started and rethrows. Calling it again while started returns the same promise. An
   * embedder who forgets it is not left with plugins that answer wrongly: the first call
   * starts them (logged once at warn).
   */
  start(): Promise<void> {
    this.stopped = false;
    return (this.starting ??= this.startPlugins().then(
      () => {
        this.running = true;
      },
      (err: unknown) => {
        this.starting = undefined;
        throw err;
      },
    ));
  }

  private async startPlugins(): Promise<void> {
    for (const plugin of this.plugins) {
      try {
        await plugin.start?.({ log: this.logger.child({ plugin: plugin.name }) });
      } catch (err) {
        await this.stopPlugins();
        throw err;
      }
      this.started.push(plugin);
    }
  }

  /**
   * Stops the plugins in reverse start order; one failing to stop does not keep the others
   * running. Then exports the spans still pending.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    this.starting = undefined;
    await this.stopPlugins();
    await this.tracing?.flush().catch((err: unknown) => {
      this.logger.warn({ err }, 'pending spans could not be exported');
    });
  }

  private async stopPlugins(): Promise<void> {
    while (this.started.length > 0) {
      const plugin = this.started.pop()!;
      try {
        await plugin.stop?.();
      } catch (err) {
        this.logger.error({ err, plugin: plugin.name }, 'plugin failed to stop');
      }
    }
  }

  /** Waits for the plugins' start, making it on the first call when nobody called start(). */
  private async startedForCalls(): Promise<void> {
    if (this.starting === undefined && !this.stopped) {
      if (!this.warnedAutoStart && this.plugins.some((p) => p.start !== undefined)) {
        this.warnedAutoStart = true;
        this.logger.warn('rpc.start() was not awaited before the first call; starting the plugins now');
      }
      void this.start().catch(() => undefined);
    }
    await this.starting;
  }

  /** Refuses new calls from now on (they get 503 -32053); calls under way finish. */
  drain(): void {
    this.access.admission.drain();
  }

  /** True once drain() was called. */
  get isDraining(): boolean {
    return this.access.admission.isDraining;
  }

  /** Which endpoint a path below the mount is, or undefined when it is none of ours. */
  target(path: string, mount: MountOptions = {}): DispatchTarget | undefined {
    return this.http.target(path, mount);
  }

  /**
   * Like `target`, but a path-style path that names no method is one too: a POST there
   * is answered -32601 with the request's id (HTTP 404) instead of falling through.
   */
  anyTarget(path: string, mount: MountOptions = {}): DispatchTarget | undefined {
    return this.http.anyTarget(path, mount);
  }

  /**
   * Answers one HTTP request. Never rejects: failures are JSON-RPC errors. `context`
   * makes the host's context of the request (the adapter's, from its own request type).
   */
  handle(exchange: HttpExchange, target: DispatchTarget, context?: () => C | Promise<C>): Promise<HttpReply> {
    const reply = this.running
      ? this.http.handle(exchange, target, context)
      : this.startedForCalls().then(() => this.http.handle(exchange, target, context));
    return reply.catch((err: unknown) => {
      this.logger.error({ err }, 'request failed outside any call');
      return {
        status: getHttpStatusCode('UNCAUGHT'),
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: errorJson('null', RpcError.of(HttpRefusal.UNCAUGHT.code).toJSON(), this.wireErrors),
      };
    });
  }

  /**
   * Answers one JSON-RPC message from any transport (a WebSocket frame, a queue, a test):
   * the text of a call or a batch in, the response text out (undefined when nothing is
   * owed). The root endpoint's rules apply (strict envelope, any method). Every message
   * is admitted before it is parsed (admission.ts): after drain() its calls are refused
   * with -32053; with `options.rateLimitKey` and rate limits configured, it costs a point of
   * that address's budget whatever its body, then what its calls cost (perMethod; -32051
   * past it); `options.apiKey` with a budget of its own pays instead. A refused
   * message of notifications only gets no answer. The connection-level rules (API keys,
   * origins) are the transport's, checked once per connection (see `access`). Never rejects.
   */
  async dispatch(body: string, options: DispatchOptions<C> = {}): Promise<string | undefined> {
    if (!this.running) await this.startedForCalls();
    const messageScope: MessageScope = {
      requestId: options.requestId ?? randomUUID(),
      origin: options.origin ?? { remoteAddress: undefined, headers: {} },
      log: this.logger,
      clientGone: options.signal,
      session: options.session,
      host: options.context,
    };
    const { admission } = this.access;
    const client = options.rateLimitKey;
    const key = options.apiKey;
    const admitted = admission.admitMessage(client, key);
    const refused = admitted instanceof Promise ? await admitted : admitted;
    const parsed = parseBody(body);
    if (refused !== undefined) {
      // Unread, its ids are unknown: one refusal with id null, as over HTTP.
      if (!parsed.ok) return this.refuse(refused, messageScope);
      return this.refuseEach(parsed.value, refused, messageScope, parsed.exactIds);
    }
    if (!parsed.ok) return this.dispatcher.unparsable(messageScope);
    const charged = admission.chargeCalls(client, key, parsed.value);
    const overBudget = charged instanceof Promise ? await charged : charged;
    if (overBudget !== undefined)
      return this.refuseEach(parsed.value, overBudget, messageScope, parsed.exactIds);
    return this.dispatcher.dispatch(parsed.value, ROOT, messageScope, parsed.exactIds);
  }

  private refuse(refusal: Refusal, scope: MessageScope): string {
    return this.dispatcher.refuse(scope, HttpRefusal[refusal.why].code, refusalData(refusal));
  }

  private refuseEach(
    body: unknown,
    refusal: Refusal,
    scope: MessageScope,
    exactIds: ExactIds | undefined,
  ): string | undefined {
    return this.dispatcher.refuseEach(
      body,
      HttpRefusal[refusal.why].code,
      refusalData(refusal),
      scope,
      exactIds,
    );
  }

  /**
   * Observes every call's outcome (metrics), in the event loop's turn after its answer was
   * handed to its transport (the call's log line is written then too). Returns a function
   * that stops observing.
   */
  onCall(listener: (event: CallEvent) => void): () => void {
    return this.dispatcher.onCall(listener);
  }

  /** Observes every charge to a named API key (its points, and whether its budget refused them): metrics per customer. */
  onKeyCharge(listener: (charge: KeyCharge) => void): void {
    this.access.admission.onKeyCharge(listener);
  }

  /** The OpenRPC document of every served method, generated from their schemas. */
  discover(): OpenRpcDocument {
    return (this.document ??= buildOpenRpcDocument(
      this.options.info,
      this.methodList.filter((m) => m.name !== 'rpc.discover' && !this.perMethod.isSwitchedOff(m.name)),
      this.errorList,
      (method) => this.plugins.find((p) => p.methods?.includes(method))?.errors ?? [],
      this.subscriptionList(),
    ));
  }

  private subscriptionList(): AnySubscriptionDefinition[] {
    return this.plugins.flatMap((p) => p.subscriptions ?? []);
  }

  private discoverMethod(): AnyMethodDefinition {
    let cached: RawJson<OpenRpcDocument> | undefined;
    return defineMethod<unknown, OpenRpcDocument>({
      name: 'rpc.discover',
      summary: 'Returns the OpenRPC document of this service.',
      params: noParamsSchema,
      handler: () => (cached ??= RawJson.of(this.discover())),
    }) as AnyMethodDefinition;
  }
}

/** What a transport tells `rpc.dispatch` about the message it carries. */
export interface DispatchOptions<C = unknown> {
  /** Goes into every log line of the message's calls. Default: a fresh UUID. */
  readonly requestId?: string;
  readonly origin?: CallOrigin;
  /** Aborts when the peer goes away (the socket closed): handlers see it through ctx.signal. */
  readonly signal?: AbortSignal;
  /** The connection's subscriptions, for a transport that keeps one (subscribe methods need it). */
  readonly session?: SubscriptionHost;
  /** With rate limits configured, the message's calls are charged to this budget key (the client's address). */
  readonly rateLimitKey?: string;
  /** The API key the connection was admitted with (`rpc.access.admission.keyOf`): one with a budget of its own pays instead. */
  readonly apiKey?: KeyAccount;
  /** The host's context of the message (`ctx.host`), made by the transport. */
  readonly context?: C;
}

/** @deprecated Renamed DispatchOptions (one name per thing: a call's context is its CallContext); this alias goes in the next release. */
export type DispatchScope<C = unknown> = DispatchOptions<C>;

/** The host's request a `context` function reads: an HTTP request, or a WebSocket upgrade. */
export type HostRequest =
  | {
      readonly transport: 'http';
      readonly req: IncomingMessage;
      readonly res: ServerResponse;
    }
  | {
      readonly transport: 'websocket';
      /** The upgrade request; the context is made once, before the connection opens. */
      readonly req: IncomingMessage;
    };

/** Makes the host's context from its request (RpcOptions.context). */
export type ContextFunction<C> = (request: HostRequest) => C | Promise<C>;

/** The access rules of the service, shared by every transport (HTTP, WebSocket). */
export interface AccessRules {
  readonly cors: Cors;
  /** Drain, rate limit and API keys: the one step that admits or refuses a request or message. */
  readonly admission: Admission;
  /** The client's address from the socket's peer and X-Forwarded-For, as trustProxy says. */
  readonly clientAddress: ClientAddressOf;
}

const ROOT: DispatchPolicy = { onlyMethod: undefined, errorNullWhereDeclared: false };

export function createRpc<C = undefined>(options: RpcOptions<C> = {}): Rpc<C> {
  return new Rpc<C>(options);
}

/** Each method and subscription name served by a plugin with a guard, to that guard. */
function pluginGuardsByMethod(plugins: readonly Plugin[]): Map<string, Guard> {
  const guards = new Map<string, Guard>();
  for (const plugin of plugins) {
    if (plugin.guard === undefined) continue;
    const served = [...(plugin.methods ?? []).map((m) => m.name)];
    for (const sub of plugin.subscriptions ?? []) served.push(sub.subscribe, sub.unsubscribe);
    for (const name of served) guards.set(name, plugin.guard);
  }
  return guards;
}
