// npm run bench -- --dispatch, paired mode: other checkouts are loaded into the same process and
// compared chunk by chunk. Run here with this checkout on both sides, a few chunks, and a
// filled store, as `npm run bench -- --dispatch OTHER` runs it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

describe('bench --dispatch, paired mode', function () {
  this.timeout(120_000);

  it('times each case of both checkouts in one process and prints medians and the per-chunk ratio', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bench/run.mjs', '--dispatch', ROOT], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_DISPATCH_CASES: 'getRoutes,fresh-1',
        BENCH_DISPATCH_CHUNKS: '3',
        BENCH_DISPATCH_STORE_ROWS: '12000',
      },
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).to.match(/median of 3 chunks per checkout, all in one process/);
    const number = '\\d+\\.\\d+';
    for (const [i, name] of ['getRoutes', 'fresh-1'].entries()) {
      expect(lines[i + 1]).to.match(
        new RegExp(
          `^  ${name} +this: ${number} +${ROOT}: ${number} \\(${number}x this \\[${number}-${number}\\]\\)$`,
        ),
      );
    }
    expect(lines).to.have.length(3);
  });
});
