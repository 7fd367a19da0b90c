import { expect } from 'chai';
import { BASE_CHAIN_NAME, OTHER_ER_LABEL, UpstreamLabels } from '../src/index.js';

const A = 'BFmX9A1woWyBqGu9KBPyWFRtSBxY8ifXpNYKkkwyfK8e';
const B = 'GEFj8R6D6nU6rNbbEtAHBAXQAgEf4MYKLx2wZE4ZuJDj';
const C = '3tK2LkjbvuqQ8oW9GPAWG8KBb6crxfa2hJ6h3hPZmrhr';
const base = { name: BASE_CHAIN_NAME, url: 'http://base', vetted: true };
const node = (identity: string, fromChain: boolean) => ({ entry: { identity, fqdn: 'http://n' }, fromChain });

describe('UpstreamLabels: one bounded label scheme for the base chain and the ERs', () => {
  it('names the allow-listed and the pinned ERs by identity, every other ER er:other', () => {
    const labels = new UpstreamLabels({ allow: [A], pin: B });
    expect(labels.of(base)).to.equal('base-chain');
    expect(labels.ofNode(node(A, true))).to.equal(`er:${A}`);
    expect(labels.ofNode(node(B, true))).to.equal(`er:${B}`);
    expect(labels.ofNode(node(C, false))).to.equal(OTHER_ER_LABEL);
    expect(labels.of({ name: `er:${C}`, url: 'http://c', identity: C, vetted: true })).to.equal(
      OTHER_ER_LABEL,
    );
  });

  it("without allow or pin: the operator's nodes are named, the on-chain registry's are not", () => {
    const labels = new UpstreamLabels({});
    expect(labels.ofNode(node(C, false))).to.equal(`er:${C}`);
    expect(labels.ofNode(node(C, true))).to.equal(OTHER_ER_LABEL);
    expect(labels.of({ name: `er:${C}`, url: 'http://c', identity: C, vetted: false })).to.equal(
      OTHER_ER_LABEL,
    );
  });
});
