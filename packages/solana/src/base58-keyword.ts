import { addSchemaKeyword } from '@rollup-router/core';
import { textKey } from './text-key.js';
import { _, type CodeKeywordDefinition, type KeywordCxt } from 'ajv/dist/2020.js';
import { base58Check, type Base58Failure } from './base58.js';

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
export const base58BytesKeyword: CodeKeywordDefinition = {
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
};

// Added when this module loads: the schemas of this package, and those that embed them, use it.
addSchemaKeyword(base58BytesKeyword);
