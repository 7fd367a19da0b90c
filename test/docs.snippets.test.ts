// Every TypeScript block of the READMEs and docs/ compiles, as a module of its own, under the
// project's strict settings and against the built packages: a reader who copies one gets code
// that type-checks.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`),
  ...readdirSync(path.join(root, 'packages')).map((p) => `packages/${p}/README.md`),
].filter((page) => {
  try {
    readFileSync(path.join(root, page));
    return true;
  } catch {
    return false;
  }
});

/** The ```ts blocks of a Markdown text. */
export function typeScriptBlocks(text: string): string[] {
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('TypeScript in the READMEs and docs/', function () {
  this.timeout(120_000);

  it('every block type-checks', async () => {
    // Inside the repository, so that the packages and node_modules resolve as for a user's project.
    const dir = path.join(root, 'test', '.doc-snippets');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files: string[] = [];
    for (const page of pages) {
      typeScriptBlocks(readFileSync(path.join(root, page), 'utf8')).forEach((block, i) => {
        const file = `${page.replace(/[/.]/g, '_')}_${i + 1}.ts`;
        // `export {}` makes each block a module of its own, as a file of a user's project is.
        writeFileSync(path.join(dir, file), `${block}\nexport {};\n`);
        files.push(file);
      });
    }
    expect(files.length, 'blocks found').to.be.above(5);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.base.json',
        compilerOptions: {
          noEmit: true,
          composite: false,
          incremental: false,
          declaration: false,
          declarationMap: false,
        },
        include: ['*.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    try {
      await promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: root });
    } catch (err) {
      const out = (err as { stdout?: string }).stdout ?? String(err);
      expect.fail(`blocks that do not compile (file names are page_block):\n${out}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
