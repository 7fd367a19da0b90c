// deploy/systemd/rollup-router.service: a unit systemd accepts as it is (systemd-analyze verify,
// no warning either) and a hardened one (systemd-analyze security's exposure score).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { skipWithout } from '@rollup-router/test-support/system-tool';
import { REPO, tempDir } from './server.harness.js';

const UNIT = join(REPO, 'deploy/systemd/rollup-router.service');

function analyze(...args: string[]): { status: number | null; output: string } {
  const ran = spawnSync('systemd-analyze', args, { encoding: 'utf8', timeout: 60_000 });
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}` };
}

describe('deploy/systemd/rollup-router.service', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir> | undefined;
  let unit = '';

  before(function () {
    skipWithout(this, 'systemd-analyze', 'systemd');
    // verify checks that ExecStart's program exists: this machine's node, where the unit says /usr/bin/node.
    tmp = tempDir();
    unit = join(tmp.dir, 'rollup-router.service');
    writeFileSync(
      unit,
      readFileSync(UNIT, 'utf8').replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `),
    );
  });
  after(() => tmp?.remove());

  it('systemd-analyze verify accepts it without a warning', () => {
    const verified = analyze('verify', unit);
    expect(verified.status, verified.output).to.equal(0);
    expect(verified.output.trim(), 'systemd-analyze verify output').to.equal('');
  });

  it('keeps the store under StateDirectory and the settings in an EnvironmentFile', () => {
    const text = readFileSync(UNIT, 'utf8');
    expect(text).to.match(/^StateDirectory=rollup-router$/m);
    expect(text).to.match(/^Environment=ROLLUP_ROUTER_STORE_PATH=\/var\/lib\/rollup-router\//m);
    expect(text).to.match(/^EnvironmentFile=-\/etc\/rollup-router\/rollup-router\.env$/m);
  });

  it('is hardened: systemd-analyze security rates its exposure 2.0 or less ("OK")', () => {
    const rated = analyze('security', '--offline=yes', '--no-pager', unit);
    expect(rated.status, rated.output).to.equal(0);
    const score = /Overall exposure level for rollup-router\.service: ([\d.]+)/.exec(rated.output);
    expect(score, rated.output).to.not.equal(null);
    expect(
      Number(score![1]),
      rated.output
        .split('\n')
        .filter((l) => l.startsWith('✗'))
        .join('\n'),
    ).to.be.at.most(2);
  });
});
