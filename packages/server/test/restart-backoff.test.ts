import { expect } from 'chai';
import { RestartBackoff } from '../src/cluster/restart-backoff.js';

describe('RestartBackoff: the wait before a dead worker is replaced', () => {
  it('doubles with each quick death up to the most, and starts over after a worker that ran a while', () => {
    const backoff = new RestartBackoff(500, 4_000, 30_000);
    expect([1, 2, 3, 4, 5].map(() => backoff.delayAfter(100))).to.deep.equal([500, 1000, 2000, 4000, 4000]);
    expect(backoff.delayAfter(60_000)).to.equal(500);
    expect(backoff.delayAfter(100)).to.equal(1000);
  });
});
