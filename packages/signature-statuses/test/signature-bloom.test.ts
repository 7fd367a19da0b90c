import { expect } from 'chai';
import { randomSignatures } from '@rollup-router/test-support/solana';
import { SignatureBloom } from '../src/signature-bloom.js';

describe('signature statuses: SignatureBloom', () => {
  it('finds every text added, and lets about 1% of the others through at capacity', () => {
    const bloom = new SignatureBloom(50_000);
    const added = randomSignatures(50_000);
    added.forEach((s) => bloom.add(s));
    expect(added.filter((s) => !bloom.mightHave(s))).to.deep.equal([]);
    const others = randomSignatures(50_000);
    const passed = others.filter((s) => bloom.mightHave(s)).length;
    // ~1% expected (7 probes, ~9.6 bits a text, rounded up to a power of two); 2% is far out in the tail.
    expect(passed / others.length).to.be.below(0.02);
    expect(bloom.full).to.equal(false);
    bloom.add(others[0]!);
    expect(bloom.full).to.equal(true);
  });
});
