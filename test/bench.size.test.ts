// Issue 38: the bench is a tool beside the product, not a second product. Its code stays at
// most half the size of the core it measures, counted as `wc -l` counts: newline characters,
// over bench/**/*.mjs (results left out: they are output) and packages/core/src/**/*.ts
// (generated types left out: the schemas write them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Newlines in the files under `dir` whose names end in `ext`, skipping directories named `skip`. */
function lines(dir: string, ext: string, skip: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) count += entry.name === skip ? 0 : lines(path, ext, skip);
    else if (entry.isFile() && entry.name.endsWith(ext))
      count += readFileSync(path, 'utf8').split('\n').length - 1;
  }
  return count;
}

describe('bench size (issue 38)', () => {
  it('the bench has at most half the lines of packages/core/src', () => {
    const bench = lines(join(ROOT, 'bench'), '.mjs', 'results');
    const core = lines(join(ROOT, 'packages/core/src'), '.ts', 'generated');
    expect(core, 'core lines').to.be.greaterThan(0);
    expect(bench <= core / 2, `bench ${bench} lines, packages/core/src ${core} (half: ${core / 2})`).to.equal(
      true,
    );
  });
});
