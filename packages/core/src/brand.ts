/**
 * Makes `instanceof cls` recognise instances made by another copy of this package. A
 * dependency tree can hold two copies of @rollup-router/core (two versions side by side,
 * one under a plugin): each has its own classes, and a plugin's RawJson result or RpcError
 * would fail the dispatcher's `instanceof` and be answered as a plain object or a crash.
 * The mark is a registered symbol on the prototype, the same in every copy. A subclass
 * keeps the ordinary test.
 */
export function brand(cls: abstract new (...args: never[]) => object, name: string): void {
  const mark = Symbol.for(`@rollup-router/core:${name}`);
  Object.defineProperty(cls.prototype, mark, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[mark] === true;
    },
  });
}
