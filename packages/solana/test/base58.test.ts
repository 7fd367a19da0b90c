import { expect } from 'chai';
import bs58 from 'bs58';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { base58DecodedLength } from '../src/base58.js';
import { compileSchema } from '@rollup-router/core';
import '../src/base58-keyword.js';

describe('base58DecodedLength', () => {
  it('agrees with a full bs58 decode on every encoded byte string', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(base58DecodedLength(bs58.encode(bytes))).to.equal(bytes.length);
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with bs58 on arbitrary text: -1 exactly where bs58 refuses it', () => {
    const text = fc.string({
      unit: fc.constantFrom(...'123456789ABCHJNPZabkmz0OIl+ é'.split('')),
      maxLength: 100,
    });
    fc.assert(
      fc.property(text, (s) => {
        const decoded = bs58.decodeUnsafe(s);
        expect(base58DecodedLength(s)).to.equal(decoded === undefined ? -1 : decoded.length);
      }),
      { numRuns: 5000 },
    );
  });

  it('is exact at every power of 256, where the byte length steps (and one below it)', () => {
    for (let k = 1; k <= 120; k++) {
      for (const zeros of [0, 1, 3]) {
        const lead = new Array<number>(zeros).fill(0);
        const power = Uint8Array.from([...lead, 1, ...new Array<number>(k).fill(0)]);
        const below = Uint8Array.from([...lead, ...new Array<number>(k).fill(255)]);
        expect(base58DecodedLength(bs58.encode(power)), `256^${k}`).to.equal(power.length);
        expect(base58DecodedLength(bs58.encode(below)), `256^${k} - 1`).to.equal(below.length);
      }
    }
  });
});

describe('the base58Bytes keyword remembers valid text', () => {
  const isSignature = compileSchema<string>({ type: 'string', base58Bytes: 64 });

  it('refuses text that shares its length and last characters with text found valid before', () => {
    // The memo is keyed by the text's length and last characters: these share that key.
    let valid = '';
    // 88 characters, so that a leading 'z' makes it too large for 64 bytes.
    while (valid.length !== 88) valid = bs58.encode(randomBytes(64));
    expect(isSignature(valid)).to.equal(true);
    for (const [text, reason] of [
      [`0${valid.slice(1)}`, 'Invalid'],
      [`z${valid.slice(1)}`, 'WrongSize'],
      [`${valid.slice(0, 10)}l${valid.slice(11)}`, 'Invalid'],
    ] as const) {
      expect(isSignature(text), text).to.equal(false);
      expect(isSignature.failure().params).to.deep.equal({ reason, size: 64 });
      expect(isSignature(valid)).to.equal(true);
    }
  });
});
