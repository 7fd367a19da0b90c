// The Dockerfile's build stage, read without building it: every workspace package's manifest
// is copied before `npm ci`, which links only the workspaces it sees. A package missing there
// builds, then fails at start with ERR_MODULE_NOT_FOUND (as the delegation router once did).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO } from './server.harness.js';

describe('Dockerfile: what its build stage copies', () => {
  const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
  const beforeInstall = dockerfile.slice(0, dockerfile.indexOf('RUN npm ci'));

  it('copies every workspace package manifest before npm ci', () => {
    const packages = readdirSync(join(REPO, 'packages')).filter((name) =>
      existsSync(join(REPO, 'packages', name, 'package.json')),
    );
    expect(packages).to.include('delegation-router');
    const missing = packages.filter(
      (name) => !beforeInstall.includes(`COPY packages/${name}/package.json packages/${name}/`),
    );
    expect(missing, 'packages whose package.json the Dockerfile does not copy before npm ci').to.deep.equal(
      [],
    );
  });
});
