// Several processes on one statuses file: the workers of `workers` (and the import CLI) open
// and write the same SQLite file at once; none may fail for the others' locks. The store is WAL
// with a busy timeout (better-sqlite3's default 5 s, and its own pragma): these tests fail
// without the timeout (seen with `timeout: 0` and no pragma).
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { StatusStore } from '@rollup-router/signature-statuses';
import { tempDir, type TempDir } from '@rollup-router/test-support/temp-dir';
import { REPO } from './server.harness.js';

interface Child {
  /** Resolves with the first line the process prints. */
  readonly said: Promise<string>;
  readonly exited: Promise<{ code: number | null; stderr: string }>;
}

/** A Node process running `script` (an ES module) from the repository, where its packages resolve. */
function run(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const said = new Promise<string>((resolve) =>
    child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())),
  );
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stderr })),
  );
  return { said, exited };
}

/** Holds the file's exclusive lock (as a worker turning a new file to WAL does) for a moment. */
const HOLD_LOCK = `
import Database from 'better-sqlite3';
const db = new Database(process.argv[1]);
db.exec('BEGIN EXCLUSIVE');
console.log('locked');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, 700);
`;

/** Opens the store and writes its own statuses one by one, as a worker learning them does. */
const WRITE_STATUSES = `
import { StatusStore } from '@rollup-router/signature-statuses';
const [path, prefix, count] = process.argv.slice(1);
const store = StatusStore.open(path);
console.log('open');
for (let i = 0; i < Number(count); i += 1)
  store.putFinalized([{ signature: prefix + String(i).padStart(6, '0'), slot: i, err: null }]);
store.close();
`;

describe('the statuses store shared by several processes', function () {
  this.timeout(60_000);
  let tmp: TempDir;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  it('opening a new file while another process holds its lock waits for it instead of failing with SQLITE_BUSY', async () => {
    const path = tmp.file('statuses.sqlite');
    const holder = run(HOLD_LOCK, [path]);
    expect(await holder.said).to.equal('locked');
    const store = StatusStore.open(path);
    try {
      store.putFinalized([{ signature: 'sig', slot: 1, err: null }]);
      expect(store.count()).to.equal(1);
    } finally {
      store.close();
    }
    expect((await holder.exited).code).to.equal(0);
  });

  it('two processes opening one new file and writing it at once both succeed, and every status is kept', async () => {
    const path = tmp.file('statuses.sqlite');
    const COUNT = 1500;
    const writers = ['a', 'b'].map((prefix) => run(WRITE_STATUSES, [path, prefix, String(COUNT)]));
    const results = await Promise.all(writers.map((w) => w.exited));
    expect(results).to.deep.equal([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ]);
    const store = StatusStore.open(path);
    try {
      expect(store.count()).to.equal(2 * COUNT);
    } finally {
      store.close();
    }
  });
});
