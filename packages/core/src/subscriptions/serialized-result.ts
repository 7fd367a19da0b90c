import { brand } from '../brand.js';

/**
 * A notification's result already serialized, given to every subscriber it goes to: the
 * text is never parsed (an upstream's own text stays byte for byte, its u64 fields
 * included, which JavaScript numbers would change). Each subscriber's message is one
 * shared frame head (made once per notification method) and its own
 * `,"subscription":ID}}`, so many subscribers cost one serialization, not one each.
 */
export class SerializedResult {
  private head: { readonly method: string; readonly bytes: Buffer } | undefined;

  constructor(
    /** The result's JSON text, as it goes on the wire. */
    readonly json: string,
  ) {}

  /** @internal The message up to the result's end, as bytes shared by every subscriber. */
  headOf(method: string): Buffer {
    if (this.head?.method !== method) {
      const text = `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":{"result":${this.json}`;
      this.head = { method, bytes: Buffer.from(text, 'utf8') };
    }
    return this.head.bytes;
  }
}

brand(SerializedResult, 'SerializedResult');
