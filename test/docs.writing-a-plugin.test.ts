// What the sibling packages import from the core is the documented surface: the entry
// points docs/writing-a-plugin.md lists. `@rollup-router/core/internal` is no API, so no
// plugin imports it; only the reference server, whose listener shares a few of core's HTTP
// rules, does.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const PAGE = readFileSync(join(REPO, 'docs/writing-a-plugin.md'), 'utf8');

/** Every .ts file under `dir`. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

/** Each `from '@rollup-router/core...'` of the packages' sources but core's own: [file, specifier]. */
const imports = readdirSync(join(REPO, 'packages'))
  .filter((name) => name !== 'core')
  .flatMap((name) => sources(join(REPO, 'packages', name, 'src')))
  .flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/from '(@rollup-router\/core(?:\/[\w-]+)?)'/g)].map(
      (m) => [relative(REPO, file), m[1]!] as const,
    ),
  );

describe('docs/writing-a-plugin.md: the entry points the packages import', () => {
  it('finds the imports', () => {
    expect(imports.length).to.be.above(20);
  });

  it('no plugin imports @rollup-router/core/internal; the server alone does', () => {
    const outside = imports.filter(
      ([file, specifier]) =>
        specifier === '@rollup-router/core/internal' && !file.startsWith('packages/server/'),
    );
    expect(outside).to.deep.equal([]);
  });

  it('every other entry point they import is in the page', () => {
    const specifiers = new Set(imports.map(([, s]) => s).filter((s) => s !== '@rollup-router/core/internal'));
    expect([...specifiers].filter((s) => !PAGE.includes(`\`${s}\``))).to.deep.equal([]);
  });
});
