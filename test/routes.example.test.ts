// examples/routes-custom-source.ts runs as a user would run it, and does what it says:
// nodes from a SQLite table, followed when another connection edits it, a bad row refused.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

describe('examples/routes-custom-source.ts', () => {
  it('serves nodes from a database table and follows changes to it', async () => {
    const { code, out } = await run(['--import', 'tsx', 'examples/routes-custom-source.ts']);
    expect(code, out).to.equal(0);
    const answers = out
      .split('\n')
      .filter((l) => l.startsWith('getRoutes '))
      .map(
        (l) =>
          JSON.parse(l.slice('getRoutes '.length)) as { result: { identity: string; countryCode: string }[] },
      );
    expect(answers.map((a) => a.result.map((r) => r.countryCode))).to.deep.equal([
      ['DEU'],
      ['DEU', 'USA'],
      ['DEU', 'USA'],
    ]);
    expect(out).to.match(/refused: sqlite .* er_nodes, entry 2, field countryCode: .* \(enum\)/);
  });
});
