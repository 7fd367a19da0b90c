import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { base58DecodedLength, maxBase58Length } from './base58.js';
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
 * Text already found valid, per size. Clients poll the same signatures until they land,
 * so most checks are repeats; remembering valid text makes a repeat a hash lookup
 * instead of a base58 magnitude computation (32% of a 256-signature call under
 * --cpu-prof). Two generations bound the memory: when the young one is full it becomes
 * the old one and the previous old one is dropped whole. (Evicting one entry at a time
 * from the front of a Set walks V8's tombstones: it made fresh 256-signature calls 2.5x
 * slower.) Only valid text is kept, so nothing invalid is ever let through.
 */
const GENERATION_SIZE = 2_048;

class KnownValid {
  private young = new Set<string>();
  private old = new Set<string>();

  has(text: string): boolean {
    return this.young.has(text) || this.old.has(text);
  }

  add(text: string): void {
    if (this.young.size >= GENERATION_SIZE) {
      this.old = this.young;
      this.young = new Set();
    }
    this.young.add(text);
  }
}

const knownValid = new Map<number, KnownValid>();

function isKnownValid(size: number, text: string): boolean {
  return knownValid.get(size)?.has(text) === true;
}

function rememberValid(size: number, text: string): void {
  let known = knownValid.get(size);
  if (!known) knownValid.set(size, (known = new KnownValid()));
  known.add(text);
}

/**
 * `base58Bytes: N` - base58 text that decodes to exactly N bytes (Solana public keys are
 * 32, signatures 64). Fails with `reason: "Invalid"` for text that is not base58 and
 * `"WrongSize"` for the wrong length: Agave's two error texts.
 */
ajv.addKeyword({
  keyword: 'base58Bytes',
  type: 'string',
  schemaType: 'number',
  errors: true,
  validate: function base58Bytes(this: unknown, size: number, data: string): boolean {
    if (isKnownValid(size, data)) return true;
    const self = base58Bytes as unknown as { errors: Partial<ErrorObject>[] };
    // Over-long text is the wrong size before it is anything else, as in Agave, and is
    // refused without being measured.
    const length = data.length > maxBase58Length(size) ? size + 1 : base58DecodedLength(data);
    if (length === -1) {
      self.errors = [
        { keyword: 'base58Bytes', message: 'must be base58 text', params: { reason: 'Invalid', size } },
      ];
      return false;
    }
    if (length !== size) {
      self.errors = [
        {
          keyword: 'base58Bytes',
          message: `must decode to ${size} bytes`,
          params: { reason: 'WrongSize', size },
        },
      ];
      return false;
    }
    rememberValid(size, data);
    return true;
  },
});

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

export function toFailure(e: ErrorObject | undefined, base = ''): ValidationFailure {
  if (!e) return { path: base || '/', rule: 'unknown', message: 'is invalid', params: {} };
  const params = { ...(e.params as Record<string, unknown>) };
  let path = base + e.instancePath;
  // For a missing or unexpected member, point at the member itself, not its parent.
  if (e.keyword === 'required') path += `/${String(params.missingProperty)}`;
  if (e.keyword === 'additionalProperties') path += `/${String(params.additionalProperty)}`;
  return { path: path || '/', rule: e.keyword, message: e.message ?? 'is invalid', params };
}

/** Validates options against their schema (filling defaults) or throws naming the key and rule. */
export function validateOptions<T>(schema: Schema, options: unknown, what: string): T {
  const v = compileSchema<T>(schema);
  const copy = options === undefined ? {} : structuredClone(options);
  if (!v(copy)) {
    const f = v.failure();
    throw new TypeError(`${what}: ${f.path} ${f.message} (${f.rule})`);
  }
  return copy;
}
