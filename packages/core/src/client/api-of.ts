import type { MethodDefinition } from '../method.js';

/** The method definitions in `T`: a method, a plugin's methods, or those of each element of a list of them. */
type MethodsIn<T> = T extends readonly (infer E)[]
  ? MethodsIn<E>
  : T extends MethodDefinition<never, unknown, never>
    ? T
    : T extends { readonly methods?: readonly (infer M)[] }
      ? MethodsIn<M>
      : never;

/** A method's name, when its type is a literal; a method named only `string` cannot be keyed. */
type LiteralName<D> = D extends { readonly name: infer N extends string }
  ? string extends N
    ? never
    : N
  : never;

/**
 * The API a server serves, inferred from its plugins and methods (as tRPC's `typeof appRouter`):
 * the server exports `type Api = ApiOf<typeof plugins>` and every client is typed by it,
 * `createClient<Api>(url)`, with no hand-written map. `T` is a plugin, a method, or a list of
 * them. A method's name must be a literal type (defineMethod and defineMethodFromSchemas keep
 * the one they infer); one named only `string` is left out.
 */
export type ApiOf<T> = {
  readonly [D in MethodsIn<T> as LiteralName<D>]: D;
};
