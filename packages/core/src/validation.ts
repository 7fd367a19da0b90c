import { _, Ajv2020, type ErrorObject, type KeywordCxt, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { base58Check, type Base58Failure } from './base58.js';
import { textKey } from './text-key.js';
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
 * so most checks are repeats: a repeat costs one probe and one comparison instead of the
 * alphabet scan and comparison of `base58Check`. The tables are keyed by textKey, not the
 * text: V8 hashes a string over all its characters, and each call's text is new from
 * JSON.parse, so a probe by text cost a hash of 88 characters, about as much as the check
 * (issue 12). Two texts sharing a key take turns (the other is checked again). Two
 * generations bound the memory: when the young one is full it becomes the old one and the
 * previous old one is dropped whole. (Evicting one entry at a time from the front walks
 * V8's tombstones: it made fresh 256-signature calls 2.5x slower.) Only valid text is
 * kept, so nothing invalid is ever let through.
 */
const GENERATION_SIZE = 2_048;

class RememberingBase58Check {
  private young = new Map<number, string>();
  private old = new Map<number, string>();
  private readonly check: (text: string) => Base58Failure;

  constructor(size: number) {
    this.check = base58Check(size);
  }

  /** '' when `text` is base58 of the size, else Agave's reason. */
  readonly failure = (text: string): Base58Failure => {
    const key = textKey(text);
    if (this.young.get(key) === text || this.old.get(key) === text) return '';
    const reason = this.check(text);
    if (reason !== '') return reason;
    if (this.young.size >= GENERATION_SIZE) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, text);
    return '';
  };
}

const base58Checks = new Map<number, RememberingBase58Check>();

function base58CheckFor(size: number): RememberingBase58Check {
  let check = base58Checks.get(size);
  if (!check) base58Checks.set(size, (check = new RememberingBase58Check(size)));
  return check;
}

/**
 * `base58Bytes: N` - base58 text that decodes to exactly N bytes (Solana public keys are
 * 32, signatures 64). Fails with `reason: "Invalid"` for text that is not base58 and
 * `"WrongSize"` for the wrong length: Agave's two error texts. Over-long text is the
 * wrong size before anything else, as in Agave, and is refused without being measured,
 * so the schemas need no `maxLength` beside it.
 *
 * A code keyword: ajv inlines one call of the size's check per value. As a `validate`
 * keyword, ajv built a context object and an instance path string for every signature,
 * which cost more than the check itself.
 */
ajv.addKeyword({
  keyword: 'base58Bytes',
  type: 'string',
  schemaType: 'number',
  code(cxt: KeywordCxt) {
    const { gen, data } = cxt;
    const check = gen.scopeValue('func', { ref: base58CheckFor(cxt.schema as number).failure });
    const reason = gen.const('reason', _`${check}(${data})`);
    cxt.setParams({ reason });
    cxt.fail(_`${reason} !== ""`);
  },
  error: {
    message: ({ params, schemaCode }) =>
      _`${params.reason} === "Invalid" ? "must be base58 text" : "must decode to " + ${schemaCode} + " bytes"`,
    params: ({ params, schemaCode }) => _`{reason: ${params.reason}, size: ${schemaCode}}`,
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
