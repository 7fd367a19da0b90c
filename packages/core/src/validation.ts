import { Ajv2020, type ErrorObject, type KeywordDefinition, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidationFailure } from './errors.js';
import type { Schema } from './method.js';

// ajv-formats is CommonJS with its function on `default` when imported from ESM.
const addFormats = addFormatsModule.default;

/**
 * One ajv for the process. `useDefaults` fills option defaults from the schema, so
 * defaults live in the schema and nowhere else.
 */
const ajv = new Ajv2020({
  allErrors: false,
  strict: true,
  strictTuples: false,
  useDefaults: true,
  allowUnionTypes: true,
});
addFormats(ajv);

/**
 * Adds a keyword to the one ajv, before any schema that uses it is compiled (ajv is
 * strict: an unknown keyword fails the compile). A domain's packages add theirs when
 * loaded (@rollup-router/solana: `base58Bytes`). Adding the same definition again does
 * nothing, also from a second copy of the package that defines it (same source); another
 * definition under a name already taken is refused.
 */
export function addSchemaKeyword(definition: KeywordDefinition): void {
  const name = definition.keyword as string;
  const known = keywords.get(name);
  if (known === definition || (known !== undefined && sameSource(known, definition))) return;
  if (known !== undefined || ajv.getKeyword(name) !== false)
    throw new TypeError(`addSchemaKeyword: the keyword ${name} is already defined`);
  ajv.addKeyword(definition);
  keywords.set(name, definition);
}
const keywords = new Map<string, KeywordDefinition>();

/** Two definitions written alike: their members, functions compared by source text. */
const sameSource = (a: KeywordDefinition, b: KeywordDefinition): boolean => sourceOf(a) === sourceOf(b);
const sourceOf = (definition: KeywordDefinition): string =>
  JSON.stringify(definition, (_key, value: unknown) => (typeof value === 'function' ? String(value) : value));

export interface Validator<T = unknown> {
  (value: unknown): value is T;
  /** The first failure of the last call, with `base` prefixed to its path. */
  failure(base?: string): ValidationFailure;
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles a schema once per schema object; calling again with the same object returns
 * the same validator, so plugins built twice do not compile twice.
 */
export function compileSchema<T = unknown>(schema: Schema): Validator<T> {
  const key = typeof schema === 'boolean' ? (schema ? TRUE : FALSE) : schema;
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(schema as object | boolean);
    compiled.set(key, fn);
  }
  const validate = fn;
  const v = ((value: unknown) => validate(value)) as Validator<T>;
  v.failure = (base = '') => toFailure(validate.errors?.[0], base);
  return v;
}
const TRUE = {};
const FALSE = {};

export function toFailure(error: ErrorObject | undefined, base = ''): ValidationFailure {
  if (!error) return { path: base || '/', rule: 'unknown', message: 'is invalid', params: {} };
  const e = asAdditional(error);
  const params = { ...(e.params as Record<string, unknown>) };
  let path = base + e.instancePath;
  // For a missing or unexpected member, point at the member itself, not its parent.
  if (e.keyword === 'required') path += `/${String(params.missingProperty)}`;
  if (e.keyword === 'additionalProperties') path += `/${String(params.additionalProperty)}`;
  return { path: path || '/', rule: e.keyword, message: e.message ?? 'is invalid', params };
}

/**
 * A member no part of an `allOf` schema knows (unevaluatedProperties: a section that adds
 * its own keys to a shared schema's) is an unknown member like any other: one rule to
 * explain, with its did-you-mean.
 */
function asAdditional(e: ErrorObject): ErrorObject {
  if (e.keyword !== 'unevaluatedProperties') return e;
  const { unevaluatedProperty } = e.params as { unevaluatedProperty: string };
  return {
    ...e,
    keyword: 'additionalProperties',
    params: { additionalProperty: unevaluatedProperty },
    message: 'must NOT have additional properties',
  };
}
