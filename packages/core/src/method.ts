import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { CallContext } from './call-context.js';
import type { Guard } from './guard.js';
import type { RpcError, ValidationFailure } from './errors.js';
import type { RawJson } from './raw-json.js';

/** A draft 2020-12 JSON Schema, as an object (inline or generated from `schemas/`). */
export type Schema = Readonly<Record<string, unknown>> | boolean;

export type MaybePromise<T> = T | Promise<T>;

/** `C` is the host's context type (createRpc's `context`): `ctx.host` is typed by it. */
export type MethodHandler<P, R, C = unknown> = (
  params: P,
  ctx: CallContext<C>,
) => MaybePromise<R | RawJson<R>>;

/** `N`: the method's name as a literal type where it was inferred, so that `ApiOf` can key the API by it. */
export interface MethodDefinition<P = unknown, R = unknown, C = unknown, N extends string = string> {
  readonly name: N;
  readonly summary?: string;
  readonly description?: string;
  /** Schema of the whole `params` member; `undefined` params are validated as absent. Omit to accept any. */
  readonly params?: Schema;
  readonly result?: Schema;
  /**
   * Turns a params schema failure into the method's own error (e.g. Agave's texts).
   * Return undefined to get the standard -32602 with the failing path and rule.
   */
  readonly paramsError?: (failure: ValidationFailure) => RpcError | undefined;
  /**
   * On path-style endpoints with the specification's envelope, a success carries
   * `"error": null` (the specification shows it for getSignatureStatuses).
   */
  readonly errorNullOnPathStyle?: boolean;
  /** Runs before this method's params are validated, after the service's and its plugin's guards (guard.ts). */
  readonly guard?: Guard<C>;
  readonly handler: MethodHandler<P, R, C>;
}

/**
 * A method of any params and result types. Params are contravariant, so `never` is the
 * type every method's params accept; the dispatcher has validated them against the schema.
 */
export type AnyMethodDefinition<C = unknown> = MethodDefinition<never, unknown, C>;

/**
 * A method whose types the caller states (used with types generated from `schemas/`); a
 * method that reads the host's context states its type too: `defineMethod<P, R, AppContext>`.
 * Its name's literal type is kept when the types are inferred (for `ApiOf`); a caller
 * who states them passes it fourth to keep it: `defineMethod<P, R, unknown, 'mySum'>`.
 */
export function defineMethod<P, R, C = unknown, const N extends string = string>(
  definition: MethodDefinition<P, R, C, N>,
): MethodDefinition<P, R, NoInfer<C>, N> {
  return definition;
}

/**
 * A method whose params and result types follow from inline `as const`-like object
 * schemas (json-schema-to-ts). It does not read 2020-12 `prefixItems`; for positional
 * params use `defineMethod<P, R>` with generated or written types.
 *
 * `P` and `R` are computed from the schemas once, as defaults, and the handler only reads
 * them (NoInfer): checking a returned object literal against `FromSchema<RS>` inline, or
 * inferring the types back from the handler, sends tsc into FromSchema's recursion
 * (TS2589 "excessively deep", TS2590). Leave `P` and `R` to their defaults.
 */
export function defineMethodFromSchemas<
  const PS extends JSONSchema,
  const RS extends JSONSchema,
  P = FromSchema<PS>,
  R = FromSchema<RS>,
  C = unknown,
  const N extends string = string,
>(definition: {
  readonly name: N;
  readonly summary?: string;
  readonly description?: string;
  readonly params: PS;
  readonly result: RS;
  readonly paramsError?: (failure: ValidationFailure) => RpcError | undefined;
  readonly errorNullOnPathStyle?: boolean;
  readonly guard?: Guard<C>;
  readonly handler: (params: NoInfer<P>, ctx: CallContext<C>) => NoInfer<MaybePromise<R>>;
}): MethodDefinition<P, R, NoInfer<C>, N> {
  return definition as never;
}
