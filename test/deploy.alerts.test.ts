// deploy/prometheus/alerts.yaml: valid rules (promtool check rules) that fire on failing routers
// and stay quiet on healthy ones (promtool test rules on alerts.test.yaml).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { skipWithout } from '@rollup-router/test-support/system-tool';
import { REPO } from './server.harness.js';

const DIR = join(REPO, 'deploy/prometheus');

function promtool(...args: string[]): { status: number | null; output: string } {
  const ran = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8', timeout: 60_000 });
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}` };
}

describe('deploy/prometheus/alerts.yaml', function () {
  this.timeout(60_000);
  before(function () {
    skipWithout(this, 'promtool', 'prometheus');
  });

  it('promtool check rules accepts every rule', () => {
    const checked = promtool('check', 'rules', 'alerts.yaml');
    expect(checked.status, checked.output).to.equal(0);
    expect(checked.output).to.match(/SUCCESS: \d+ rules found/);
  });

  it('promtool test rules: each alert fires on a failing router and stays quiet on a healthy one', () => {
    const tested = promtool('test', 'rules', 'alerts.test.yaml');
    expect(tested.status, tested.output).to.equal(0);
    expect(tested.output).to.include('SUCCESS');
  });
});
