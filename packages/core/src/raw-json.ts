import { brand } from './brand.js';

/**
 * A result that is already serialized. A handler whose answer rarely changes (a
 * snapshot such as the route list) returns one so the hot path skips JSON.stringify.
 * `value` is kept for result validation and for in-process callers.
 */
export class RawJson<T = unknown> {
  constructor(
    readonly json: string,
    readonly value: T,
  ) {}

  static of<T>(value: T): RawJson<T> {
    return new RawJson(JSON.stringify(value), value);
  }
}

brand(RawJson, 'RawJson');
