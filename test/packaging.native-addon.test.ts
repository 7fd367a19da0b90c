// better-sqlite3 is a native addon compiled for the running Node. Compiled against Node
// >= 24.19 headers (better-sqlite3 12), it aborts the process as soon as the GC finalizes a
// statement (nodejs/node#65446); `.ci/test-node-lines` builds it so that it does not.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const statusesManifest = fileURLToPath(
  new URL('../packages/signature-statuses/package.json', import.meta.url),
);
const addon = createRequire(statusesManifest).resolve('better-sqlite3');

// Short-lived statements, left for the GC, with allocation between batches so it runs.
const churn = `
const Database = require(${JSON.stringify(addon)});
const db = new Database(':memory:');
db.exec('create table t (k text primary key, v integer)');
let i = 0;
function batch() {
  for (let j = 0; j < 2000; j++, i++) db.prepare('insert into t values (?, ?)').run('k' + i, i);
  const garbage = [];
  for (let j = 0; j < 20000; j++) garbage.push({ j, s: 'x' + j });
  if (i < 100000) setTimeout(batch, 1);
  else console.log(db.prepare('select count(*) as n from t').get().n);
}
batch();
`;

describe('packaging: the SQLite native addon on this Node', function () {
  this.timeout(120_000);

  it('survives the GC finalizing many statements', () => {
    const ran = spawnSync(process.execPath, ['-e', churn], { encoding: 'utf8', timeout: 100_000 });
    expect(ran.signal, ran.stderr).to.equal(null);
    expect(ran.status, ran.stderr).to.equal(0);
    expect(ran.stdout.trim()).to.equal('100000');
  });
});
