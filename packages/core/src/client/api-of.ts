import type { MethodDefinition } from '../method.js';
import type { SubscriptionDefinition } from '../subscriptions/definition.js';

/** The method definitions in `T`: a method, a plugin's methods, or those of each element of a list of them. */
type MethodsIn<T> = T extends readonly (infer E)[]
  ? MethodsIn<E>
  : T extends MethodDefinition<never, unknown, never>
    ? T
    : T extends { readonly methods?: readonly (infer M)[] }
      ? MethodsIn<M>
      : never;

/** The subscription definitions in `T`: a subscription, a plugin's subscriptions, or those of each element of a list of them. */
type SubscriptionsIn<T> = T extends readonly (infer E)[]
  ? SubscriptionsIn<E>
  : T extends SubscriptionDefinition<never, unknown, never>
    ? T
    : T extends { readonly subscriptions?: readonly (infer S)[] }
      ? SubscriptionsIn<S>
      : never;

/** `N` when it is a literal type (or a union of them); a name typed only `string` cannot be keyed. */
type Literal<N> = string extends N ? never : N;

/** A method's name, or a subscription's subscribe method: what a client calls it by. */
type KeyOf<D> = D extends { readonly name: infer N extends string }
  ? Literal<N>
  : D extends { readonly subscribe: infer S extends string }
    ? Literal<S>
    : never;

/**
 * The API a server serves, inferred from its plugins, methods and subscriptions (as tRPC's
 * `typeof appRouter`): the server exports `type Api = ApiOf<typeof plugins>` and every client
 * is typed by it, `createClient<Api>(url)`, with no hand-written map: its methods as the
 * client's methods, its subscriptions for `$subscribe`. `T` is a plugin, a method, a
 * subscription, or a list of them. A name must be a literal type (defineMethod,
 * defineMethodFromSchemas and defineSubscription keep the one they infer); one typed only
 * `string` is left out.
 */
export type ApiOf<T> = {
  readonly [D in MethodsIn<T> | SubscriptionsIn<T> as KeyOf<D>]: D;
};
