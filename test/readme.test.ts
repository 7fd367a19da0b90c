import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const pages = [
  'README.md',
  'bench/README.md',
  ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (!fenced && heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

describe('README and docs/', () => {
  const readme = read('README.md');

  it('the README is a newcomer page of at most 25 KB', () => {
    expect(Buffer.byteLength(readme)).to.be.at.most(25 * 1024);
  });

  it('shows the two set-up commands', () => {
    expect(readme).to.include('npm ci && npm start').and.include('npm test');
  });

  it('every relative link of the README and docs/ names a file that exists, and an anchor it has', () => {
    for (const page of pages) {
      const text = read(page);
      for (const [, target] of text.matchAll(/\]\((?!https?:|mailto:)([^)\s]+)\)/g)) {
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.join(path.dirname(page), file);
        expect(existsSync(path.join(root, resolved)), `${page} links ${target}`).to.equal(true);
        if (anchor !== undefined && resolved.endsWith('.md')) {
          expect([...anchorsOf(read(resolved))], `${page} links ${target}`).to.include(anchor);
        }
      }
    }
  });
});
