import { expect } from 'chai';
import { resultJson } from '../src/result-json.js';
import { status } from '@rollup-router/test-support/solana';

describe('resultJson', () => {
  const failed = status('confirmed', 9, { InstructionError: [0, { Custom: 6001 }] });
  const final = status('finalized', 12);
  const result = {
    context: { apiVersion: '2.2.1', slot: 12 },
    value: [final, null, failed, final, null],
  };

  it('makes the bytes JSON.stringify makes, a status served twice included', () => {
    const first = resultJson(result);
    expect(first.json).to.equal(JSON.stringify(result));
    expect(first.value).to.equal(result);
    // Served again (its text is reused now), in another order and context.
    const again = { context: { apiVersion: '2.3.0', slot: 99 }, value: [failed, final] };
    expect(resultJson(again).json).to.equal(JSON.stringify(again));
    const empty = { context: { apiVersion: '2.3.0', slot: 1 }, value: [] };
    expect(resultJson(empty).json).to.equal(JSON.stringify(empty));
  });

  it('serializes a result of another member order whole, keeping that order', () => {
    const reordered = { value: [final], context: { apiVersion: '2.2.1', slot: 12 } };
    expect(resultJson(reordered).json).to.equal(JSON.stringify(reordered));
  });
});
