// The docs' links and the pages they name lead somewhere: a page that moves or was never
// brought into the repository fails here, not in a reader's browser.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const PAGES = [
  join(REPO, 'README.md'),
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(REPO, 'docs', f)),
];

/** The text outside fenced code blocks, where links and page names are prose. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

describe('docs links', () => {
  for (const page of PAGES) {
    const name = page.slice(REPO.length + 1);
    const text = prose(readFileSync(page, 'utf8'));

    it(`${name}: every relative link leads to a file`, () => {
      const targets = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((t) => !/^[a-z]+:/i.test(t));
      expect(targets.filter((t) => !existsSync(resolve(dirname(page), t)))).to.deep.equal([]);
    });

    it(`${name}: every page it names in code (\`name.md\`) is in docs/ or the repository`, () => {
      const named = [...text.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1]!);
      const missing = named.filter(
        (n) =>
          !existsSync(resolve(dirname(page), n)) &&
          !existsSync(join(REPO, n)) &&
          !existsSync(join(REPO, 'docs', n)),
      );
      expect(missing).to.deep.equal([]);
    });
  }
});
