import { explainFailure } from './explain-failure.js';
import type { Schema } from './method.js';
import { compileSchema } from './validation.js';

/**
 * Validates options against their schema (filling defaults) or throws naming the key and
 * rule; inside a oneOf, the rule of the branch of the value's type (explainFailure).
 */
export function validateOptions<T>(schema: Schema, options: unknown, what: string): T {
  const v = compileSchema<T>(schema);
  const copy = options === undefined ? {} : structuredClone(options);
  if (!v(copy)) {
    const f = explainFailure(schema, copy, v.failure());
    throw new TypeError(`${what}: ${f.path} ${f.message} (${f.rule})`);
  }
  return copy;
}
