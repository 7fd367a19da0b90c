import { createHook } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { deadlineIn } from '../src/deadlines.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `code` in a new node with deadlineIn imported; resolves with its stdout once it exits. */
async function inChild(code: string): Promise<string> {
  const module = new URL('../dist/deadlines.js', import.meta.url).href;
  const script = `import { deadlineIn } from ${JSON.stringify(module)};\n${code}`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return stdout;
}

describe('deadlines (one timer per duration)', function () {
  this.timeout(20_000);

  it('each runs once, no earlier than its duration after it was set, in order; a cancelled one never runs', async () => {
    const fired: { i: number; after: number }[] = [];
    const set = Array.from({ length: 40 }, (_, i) => {
      const start = performance.now();
      return deadlineIn(15 + (i % 3), () => fired.push({ i, after: performance.now() - start }));
    });
    set.forEach((d, i) => i % 4 === 1 && d.cancel());
    await sleep(120);
    const expected = set.map((_, i) => i).filter((i) => i % 4 !== 1);
    expect(fired.map((f) => f.i).sort((a, b) => a - b)).to.deep.equal(expected);
    for (const { i, after } of fired) expect(after, `deadline ${i}`).to.be.at.least(15 + (i % 3));
    const ofOneDuration = fired.filter((f) => f.i % 3 === 0).map((f) => f.i);
    expect(ofOneDuration).to.deep.equal([...ofOneDuration].sort((a, b) => a - b));
  });

  it('counted from an earlier start, a deadline runs before the later ones of its duration', async () => {
    const order: string[] = [];
    deadlineIn(60, () => order.push('now'));
    deadlineIn(60, () => order.push('started 50 ms ago'), { from: performance.now() - 50 });
    await sleep(30);
    expect(order).to.deep.equal(['started 50 ms ago']);
    await sleep(60);
    expect(order).to.deep.equal(['started 50 ms ago', 'now']);
  });

  it('cancelling twice, or after it ran, does nothing to the others', async () => {
    let ran = 0;
    const a = deadlineIn(5, () => ran++);
    const b = deadlineIn(5, () => ran++);
    b.cancel();
    b.cancel();
    await sleep(30);
    a.cancel();
    const c = deadlineIn(5, () => ran++);
    await sleep(30);
    c.cancel();
    expect(ran).to.equal(2);
  });

  it('a duration past what setTimeout takes (2^31 ms) does not run early, nor spin', async () => {
    let ran = false;
    let timers = 0;
    const counting = createHook({ init: (_id, type) => void (type === 'Timeout' && timers++) }).enable();
    const d = deadlineIn(2 ** 32, () => (ran = true));
    await sleep(30);
    counting.disable();
    d.cancel();
    expect(ran).to.equal(false);
    // The deadline's, the sleep's, mocha's: one armed every millisecond would be ~30.
    expect(timers, 'timers set in 30 ms').to.be.at.most(5);
  });

  it('a pending deadline keeps the process running until it runs; a cancelled one does not', async () => {
    expect(await inChild(`deadlineIn(200, () => console.log('ran'));`)).to.equal('ran\n');
    // Left waiting on a 10-minute timer, this child would outlast the test's timeout.
    expect(
      await inChild(`deadlineIn(600_000, () => console.log('ran')).cancel(); console.log('done');`),
    ).to.equal('done\n');
    expect(
      await inChild(
        `deadlineIn(600_000, () => console.log('ran'), { keepsAlive: false }); console.log('done');`,
      ),
    ).to.equal('done\n');
  });
});
