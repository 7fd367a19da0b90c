// docs/architecture.md against the code: its package table and graph are the ones
// scripts/package-graph-page.mjs generates from the packages' package.json files, and every
// module it credits with a step exists.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PAGE, packages, withCurrentGraph } from '../scripts/package-graph-page.mjs';

const REPO = resolve(import.meta.dirname, '..');

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

describe('docs/architecture.md', () => {
  const page = readFileSync(PAGE, 'utf8');

  it('its package table and graph are current (npm run docs:architecture writes them)', async () => {
    expect(page).to.equal(await withCurrentGraph(page));
  });

  it('names every package of the workspace', async () => {
    const listed = readdirSync(join(REPO, 'packages'));
    const names = (await packages()).map((p) => p.dir);
    expect(names.sort()).to.deep.equal(listed.map((d) => `packages/${d}`).sort());
  });

  it('every packages/... path it names exists', () => {
    const paths = [...page.matchAll(/`(packages\/[\w./-]+)`/g)].map((m) => m[1]!.replace(/\/$/, ''));
    expect(paths.length).to.be.above(0);
    expect(paths.filter((p) => !existsSync(join(REPO, p)))).to.deep.equal([]);
  });

  it('every module it names by file name alone is a file of some package', () => {
    const sources = new Set(
      readdirSync(join(REPO, 'packages')).flatMap((pkg) =>
        filesBelow(join(REPO, 'packages', pkg, 'src')).map((f) => `src/${f.replaceAll('\\', '/')}`),
      ),
    );
    const known = (name: string): boolean => [...sources].some((f) => f === name || f.endsWith(`/${name}`));
    const names = [...page.matchAll(/`([\w/-]+\.ts)`/g)]
      .map((m) => m[1]!)
      .filter((n) => !n.startsWith('packages/'));
    expect(names.length).to.be.above(0);
    expect(names.filter((n) => !known(n))).to.deep.equal([]);
  });
});
