import { CallContextImpl, type MessageScope } from './call.js';
import type { CallLog } from './call-log.js';
import { ErrorCode } from './codes.js';
import { deadlineIn } from './deadlines.js';
import { errorJson, successJson } from './envelope.js';
import { RpcError, type RpcErrorObject } from './errors.js';
import { jsonrpcRequestSchema, type JsonrpcRequest } from './generated/schemas.js';
import { hasUnechoableId, idJson, type ExactIds } from './exact-ids.js';
import type { CallAdmission } from './admission.js';
import type { Guard } from './guard.js';
import type { AnyMethodDefinition } from './method.js';
import { emitGuarded } from './observers.js';
import type { PerMethod } from './per-method.js';
import { RawJson } from './raw-json.js';
import type { BatchSpan, CallSpan, CallTracing } from './tracing/call-tracing.js';
import { compileSchema, type Validator } from './validation.js';
import type { WireErrorPolicy } from './wire-errors.js';

/** One call's outcome, for metrics and observers: code 0 is a success. */
export interface CallEvent {
  readonly requestId: string;
  readonly method: string;
  readonly code: number;
  readonly durationMs: number;
  readonly notification: boolean;
  /** The upstreams that answered the call (CallContext.answeredBy); undefined when none did. */
  readonly upstreams: readonly string[] | undefined;
}

/**
 * What a transport asks of the dispatcher for one message, in the dispatcher's terms:
 * it knows no URL. (Over HTTP, a path-style endpoint sets both; the root neither.)
 */
export interface DispatchPolicy {
  /** When set, every call's method must be this one; another is -32600 naming both. */
  readonly onlyMethod: string | undefined;
  /** Successes of methods that declare it (`errorNullOnPathStyle`) carry `"error": null`. */
  readonly errorNullWhereDeclared: boolean;
}

interface CompiledMethod {
  readonly definition: AnyMethodDefinition;
  readonly validateParams: Validator | undefined;
  readonly validateResult: Validator | undefined;
  readonly emptyParams: () => unknown;
  /** Its plugin's guard, then its own (the service's are the admission's). */
  readonly guards: readonly Guard[];
  /** The operator switched it off (perMethod): its calls are answered -32055 before any guard. */
  readonly switchedOff: boolean;
}

export interface DispatcherOptions {
  readonly maxBatchLength: number;
  readonly callDeadlineMs: number;
  readonly validateResults: boolean;
  /** Which calls get a log line, and at which level. */
  readonly callLog: CallLog;
  /** The call-level stage of the one admission step: the guards. */
  readonly admission: CallAdmission;
  /** The guard of the plugin that serves a method, if any. */
  readonly pluginGuardOf: (method: string) => Guard | undefined;
  /** Which methods the operator switched off. */
  readonly perMethod: PerMethod;
  /** Each call's span; undefined when tracing is off. */
  readonly tracing?: CallTracing;
  /** How the service writes its errors on the wire. */
  readonly wireErrors: WireErrorPolicy;
}

const NO_GUARDS: readonly Guard[] = [];

// Such an id is echoed exactly only from its source text, which a host's body parser never keeps.
const UNECHOABLE_ID =
  'a number id beyond 2^53 must be a plain integer read by the router itself (mount it before any body parser)';

const validateRequest = compileSchema<JsonrpcRequest>(jsonrpcRequestSchema);

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** An id is echoed on an invalid request only when the id itself is valid. */
function echoableId(call: unknown, exactIds: ExactIds | undefined): string {
  if (!isObject(call) || !Object.hasOwn(call, 'id')) return 'null';
  const id = call.id;
  const valid =
    id === null ||
    typeof id === 'string' ||
    (typeof id === 'number' && Number.isInteger(id) && !hasUnechoableId(call, exactIds)) ||
    exactIds?.has(call) === true;
  return valid ? idJson(call, id, exactIds) : 'null';
}

/**
 * Whether a call is a valid request object. A number id recovered from its source text
 * is valid whatever JSON.parse made of it (Infinity past 309 digits): it is echoed from
 * that text, so only the rest of the call is checked, on a copy (the rare case).
 */
function isValidRequest(call: unknown, exactIds: ExactIds | undefined): call is JsonrpcRequest {
  if (validateRequest(call)) return true;
  return (
    exactIds !== undefined && isObject(call) && exactIds.has(call) && validateRequest({ ...call, id: 0 })
  );
}

/**
 * The transport-neutral heart: takes a parsed body, answers with the response text
 * (undefined when nothing is owed: notifications only). It never throws: a handler's
 * bug becomes -32603 here, and is logged with its stack, never returned.
 */
export class Dispatcher {
  private readonly methods = new Map<string, CompiledMethod>();
  private readonly listeners: ((e: CallEvent) => void)[] = [];

  constructor(
    methods: Iterable<AnyMethodDefinition>,
    private readonly options: DispatcherOptions,
  ) {
    for (const definition of methods) {
      const objectParams =
        typeof definition.params === 'object' && (definition.params as { type?: unknown }).type === 'object';
      this.methods.set(definition.name, {
        definition,
        validateParams: definition.params === undefined ? undefined : compileSchema(definition.params),
        validateResult: definition.result === undefined ? undefined : compileSchema(definition.result),
        emptyParams: objectParams ? () => ({}) : () => [],
        guards: [options.pluginGuardOf(definition.name), definition.guard].filter(
          (g): g is Guard => g !== undefined,
        ),
        switchedOff: options.perMethod.isSwitchedOff(definition.name),
      });
    }
  }

  has(method: string): boolean {
    return this.methods.has(method);
  }

  onCall(listener: (e: CallEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /**
   * Answers a parsed body: a single call or a batch. `exactIds` holds the source text of
   * number ids JSON.parse could not hold exactly (see parseBody). A call whose handler
   * answers synchronously is answered synchronously: no promise where nothing waits.
   */
  dispatch(
    body: unknown,
    policy: DispatchPolicy,
    scope: MessageScope,
    exactIds?: ExactIds,
  ): Answer | Promise<Answer> {
    if (!Array.isArray(body)) return this.call(body, policy, scope, exactIds);
    if (body.length === 0) {
      return this.answerWithoutCalls('null', ErrorCode.INVALID_REQUEST, scope, 'empty batch');
    }
    if (body.length > this.options.maxBatchLength) {
      return this.answerWithoutCalls(
        'null',
        ErrorCode.INVALID_REQUEST,
        scope,
        `batch of ${body.length} calls is over the limit of ${this.options.maxBatchLength}`,
      );
    }
    const batch = this.options.tracing?.batch(scope, body.length);
    return Promise.all(body.map((call) => this.call(call, policy, scope, exactIds, batch))).then(
      (answers) => {
        batch?.end();
        const owed = answers.filter((a): a is string => a !== undefined);
        return owed.length === 0 ? undefined : `[${owed.join(',')}]`;
      },
    );
  }

  /** The answer to a body that is not JSON; logged and observed like any call. */
  unparsable(scope: MessageScope): string {
    return this.answerWithoutCalls('null', ErrorCode.PARSE_ERROR, scope, undefined);
  }

  /** The answer to a request refused before any call was read (its body too large, say); logged and observed. */
  refuse(scope: MessageScope, code: number, data: unknown): string {
    return this.answerWithoutCalls('null', code, scope, data);
  }

  /**
   * Refuses every call of a parsed body with one code (rate limited, shutting down) for
   * a transport that answers per message: each call gets it under its own id, so a
   * client waiting on an id is not left waiting; notifications get nothing, alone or in
   * a batch (JSON-RPC answers no notification).
   */
  refuseEach(
    body: unknown,
    code: number,
    data: unknown,
    scope: MessageScope,
    exactIds?: ExactIds,
  ): string | undefined {
    const error = new RpcError(code, undefined, data).toJSON();
    const one = (call: unknown): string | undefined => {
      const notification = isValidRequest(call, exactIds) && !Object.hasOwn(call, 'id');
      this.finish(scope, '', code, 0, notification);
      return notification ? undefined : errorJson(echoableId(call, exactIds), error, this.options.wireErrors);
    };
    if (!Array.isArray(body) || body.length === 0) return one(body);
    const owed = body.map(one).filter((a): a is string => a !== undefined);
    return owed.length === 0 ? undefined : `[${owed.join(',')}]`;
  }

  /** The answer to a request that failed before any call was read (the host's context threw); logged and observed. */
  failed(scope: MessageScope, err: unknown): string {
    const error = this.toErrorObject(err, scope, '');
    this.finish(scope, '', error.code, 0, false);
    return this.errorJson('null', error);
  }

  /** An error's response, as the service's wire error policy writes it. */
  errorJson(id: string, error: RpcErrorObject): string {
    return errorJson(id, error, this.options.wireErrors);
  }

  private answerWithoutCalls(id: string, code: number, scope: MessageScope, data: unknown): string {
    const error = new RpcError(code, undefined, data).toJSON();
    this.finish(scope, '', code, 0, false);
    return this.errorJson(id, error);
  }

  private call(
    call: unknown,
    policy: DispatchPolicy,
    scope: MessageScope,
    exactIds: ExactIds | undefined,
    batch?: BatchSpan,
  ): Answer | Promise<Answer> {
    const started = performance.now();
    if (!isValidRequest(call, exactIds)) {
      const f = validateRequest.failure();
      return this.answerWithoutCalls(echoableId(call, exactIds), ErrorCode.INVALID_REQUEST, scope, {
        path: f.path,
        rule: f.rule,
        message: f.message,
      });
    }
    if (hasUnechoableId(call, exactIds)) {
      return this.answerWithoutCalls('null', ErrorCode.INVALID_REQUEST, scope, {
        path: '/id',
        rule: 'type',
        message: UNECHOABLE_ID,
      });
    }
    const span = this.options.tracing?.call(scope, batch, {
      method: call.method,
      known: this.methods.has(call.method),
      id: traceId(call, exactIds),
    });
    const answer = new CallAnswer(this, call, policy, scope, exactIds, started, span);
    let result: string | Promise<string>;
    try {
      result =
        span === undefined
          ? this.admitAndInvoke(answer, call, scope, started)
          : span.run(() => this.admitAndInvoke(answer, call, scope, started));
    } catch (err) {
      return answer.failed(err);
    }
    return result instanceof Promise
      ? result.then(
          (json) => answer.succeeded(json),
          (err: unknown) => answer.failed(err),
        )
      : answer.succeeded(result);
  }

  /** The call's guards, then its handler: the result's JSON, or a promise of it. Throws what the call is refused with. */
  private admitAndInvoke(
    answer: CallAnswer,
    call: JsonrpcRequest,
    scope: MessageScope,
    started: number,
  ): string | Promise<string> {
    const method = answer.method(this.methods);
    if (method?.switchedOff === true)
      throw RpcError.of(ErrorCode.METHOD_SWITCHED_OFF, { method: call.method });
    const ctx = (answer.ctx = new CallContextImpl(
      scope,
      call.method,
      Date.now() + this.options.callDeadlineMs,
      answer.notification,
    ));
    const admitted = this.options.admission.admitCall(ctx, call.params, method?.guards ?? NO_GUARDS);
    // The call's deadline covers its guards too: a guard that never settles must not hold the call.
    return admitted instanceof Promise
      ? this.withinDeadline(admitted, ctx, started).then(() => this.invoke(method, call.params, ctx, started))
      : this.invoke(method, call.params, ctx, started);
  }

  /** The result's JSON, or a promise of it when the handler answers asynchronously. */
  private invoke(
    method: CompiledMethod | undefined,
    rawParams: unknown,
    ctx: CallContextImpl,
    started: number,
  ): string | Promise<string> {
    if (method === undefined) throw RpcError.of(ErrorCode.METHOD_NOT_FOUND);
    const { definition } = method;
    const params = rawParams === undefined ? method.emptyParams() : rawParams;
    if (method.validateParams && !method.validateParams(params)) {
      const f = method.validateParams.failure('/params');
      throw (
        definition.paramsError?.(f) ??
        RpcError.of(ErrorCode.INVALID_PARAMS, { path: f.path, rule: f.rule, message: f.message })
      );
    }
    const out = definition.handler(params as never, ctx);
    if (out instanceof Promise) {
      return this.withinDeadline(out, ctx, started).then((value: unknown) => this.resultJson(method, value));
    }
    return this.resultJson(method, out);
  }

  private resultJson(method: CompiledMethod, out: unknown): string {
    const raw = out instanceof RawJson ? out : undefined;
    const value = raw ? (raw.value as unknown) : out;
    if (this.options.validateResults && method.validateResult && !method.validateResult(value)) {
      const f = method.validateResult.failure('/result');
      throw new ResultMismatch(method.definition.name, f.path, `${f.message} (${f.rule})`);
    }
    if (raw) return raw.json;
    const json = JSON.stringify(value);
    // JSON.stringify(undefined) is undefined; a handler that returns nothing answers null.
    return json === undefined ? 'null' : json;
  }

  private withinDeadline<T>(pending: Promise<T>, ctx: CallContextImpl, started: number): Promise<T> {
    const { callDeadlineMs } = this.options;
    return new Promise<T>((resolve, reject) => {
      const deadline = deadlineIn(
        callDeadlineMs,
        () => {
          ctx.expire();
          reject(RpcError.of(ErrorCode.DEADLINE_EXCEEDED, { deadlineMs: callDeadlineMs }));
        },
        { from: started },
      );
      pending.then(
        (v) => {
          deadline.cancel();
          resolve(v);
        },
        (e: unknown) => {
          deadline.cancel();
          reject(e);
        },
      );
    });
  }

  /** @internal */
  toErrorObject(err: unknown, scope: MessageScope, method: string): RpcErrorObject {
    if (err instanceof RpcError) return err.toJSON();
    if (err instanceof ResultMismatch) {
      scope.log.error(
        { reqId: scope.requestId, method: err.method, path: err.path, rule: err.detail },
        'result does not match its schema',
      );
    } else {
      scope.log.error({ reqId: scope.requestId, method, err }, 'handler failed');
    }
    return RpcError.of(ErrorCode.INTERNAL_ERROR).toJSON();
  }

  /**
   * Logs (as `callLog` says) and observes one call's outcome once its answer is on its way:
   * written before it, the line and the observers (metrics) added ~27 µs to a forwarded
   * sendTransaction's latency (Node 20, from the upstream's answer to ours). The duration is
   * taken now.
   * @internal
   */
  finish(
    scope: MessageScope,
    method: string,
    code: number,
    durationMs: number,
    notification: boolean,
    upstreams?: readonly string[],
  ): void {
    if (this.finished.push({ scope, method, code, durationMs, notification, upstreams }) === 1) {
      setImmediate(this.recordFinished);
    }
  }

  /** The outcomes of the calls answered since the last turn of the event loop. */
  private readonly finished: FinishedCall[] = [];

  private readonly recordFinished = (): void => {
    for (const { scope, method, code, durationMs, notification, upstreams } of this.finished.splice(0)) {
      this.options.callLog.write(scope.log, scope.requestId, method, durationMs, code, upstreams);
      if (this.listeners.length > 0) {
        const { requestId } = scope;
        const event: CallEvent = { requestId, method, code, durationMs, notification, upstreams };
        emitGuarded(this.listeners, event, scope.log, 'onCall');
      }
    }
  };
}

interface FinishedCall {
  readonly scope: MessageScope;
  readonly method: string;
  readonly code: number;
  readonly durationMs: number;
  readonly notification: boolean;
  readonly upstreams: readonly string[] | undefined;
}

/** The response text of a message, or undefined when nothing is owed (notifications only). */
type Answer = string | undefined;

/**
 * One valid call between its dispatch and its answer: the id, the method and the start,
 * kept for whichever of success or failure comes, synchronously or not.
 */
class CallAnswer {
  readonly notification: boolean;
  private readonly id: string;
  private readonly name: string;
  private found: CompiledMethod | undefined;
  /** The call's context once made: it knows which upstreams answered. */
  ctx: CallContextImpl | undefined;

  constructor(
    private readonly dispatcher: Dispatcher,
    call: JsonrpcRequest,
    private readonly policy: DispatchPolicy,
    private readonly scope: MessageScope,
    exactIds: ExactIds | undefined,
    private readonly started: number,
    private readonly span: CallSpan | undefined,
  ) {
    this.notification = !Object.hasOwn(call, 'id');
    this.id = this.notification ? 'null' : idJson(call, call.id, exactIds);
    this.name = call.method;
  }

  /**
   * The method the call may run, undefined when there is none (the guards see the call
   * before it is answered -32601); throws when the path names another.
   */
  method(methods: ReadonlyMap<string, CompiledMethod>): CompiledMethod | undefined {
    const { name, policy } = this;
    if (policy.onlyMethod !== undefined && name !== policy.onlyMethod) {
      throw new RpcError(
        ErrorCode.INVALID_REQUEST,
        undefined,
        `method "${name}" in the body does not match "${policy.onlyMethod}" in the path`,
      );
    }
    return (this.found = methods.get(name));
  }

  succeeded(result: string): Answer {
    const errorNull =
      this.policy.errorNullWhereDeclared && this.found?.definition.errorNullOnPathStyle === true;
    return this.settle(0, successJson(this.id, result, errorNull));
  }

  failed(err: unknown): Answer {
    const error = this.dispatcher.toErrorObject(err, this.scope, this.name);
    return this.settle(error.code, this.dispatcher.errorJson(this.id, error), error.message);
  }

  private settle(code: number, answer: string, message?: string): Answer {
    const { scope, name, started, notification } = this;
    this.span?.end(code, message);
    this.dispatcher.finish(scope, name, code, performance.now() - started, notification, this.ctx?.upstreams);
    return notification ? undefined : answer;
  }
}

/** A call's id as its span shows it: a string as it is, a number as written; none for a notification or null. */
function traceId(call: JsonrpcRequest, exactIds: ExactIds | undefined): string | undefined {
  const { id } = call;
  if (id === undefined || id === null) return undefined;
  return typeof id === 'string' ? id : idJson(call, id, exactIds);
}

class ResultMismatch extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`result of ${method} does not match its schema at ${path}: ${detail}`);
  }
}
