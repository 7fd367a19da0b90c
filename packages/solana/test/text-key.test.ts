import { expect } from 'chai';
import { textKey } from '../src/text-key.js';
import { signaturesCountingUp, randomSignature } from '@rollup-router/test-support/solana';

describe('textKey', () => {
  it('is a small non-negative integer, the same for the same text', () => {
    const sig = randomSignature();
    const key = textKey(sig);
    expect(Number.isInteger(key) && key >= 0 && key < 2 ** 30).to.equal(true);
    // Another string object with the same text, as each call's JSON.parse makes.
    expect(textKey(JSON.parse(JSON.stringify(sig)) as string)).to.equal(key);
  });

  it('tells apart texts that count up in their last digits', () => {
    // 10,000 texts: with 30-bit keys a chance collision or two may happen, not more.
    const keys = new Set(signaturesCountingUp(10_000).map(textKey));
    expect(keys.size).to.be.greaterThan(9_990);
  });

  it('tells apart digits that differ by +1 and -31 (a linear mix of the characters did not)', () => {
    const stem = randomSignature().slice(0, -2);
    // '1' (49) then 'Q' (81) against '2' (50) then '2' (50): 49 * 31 + 81 = 50 * 31 + 50.
    expect(textKey(`${stem}1Q`)).to.not.equal(textKey(`${stem}22`));
  });
});
