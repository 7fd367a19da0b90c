// docs/error-codes.md's table against the codes the real service declares: core and plugins.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createLogger, createRpc } from '@rollup-router/core';
import { routesPlugin } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';

describe('error codes of the reference service', () => {
  const readme = readFileSync(new URL('../docs/error-codes.md', import.meta.url), 'utf8').split('\n');
  const rpc = createRpc({
    logger: createLogger({ level: 'silent' }),
    plugins: [routesPlugin({ routes: [] }), signatureStatusesPlugin()],
  });
  const errors = rpc.discover()['x-errors'];

  it('includes the statuses plugin codes, declared by that plugin', () => {
    const mine = errors.filter((e) => e.owner === 'signature-statuses').map((e) => e.code);
    expect(mine).to.deep.equal([-32060, -32061, -32062, -32063, -32064]);
  });

  it('the error table of docs/error-codes.md lists every declared code with its message', () => {
    for (const { code, message } of errors) {
      const rows = readme.filter((l) => l.startsWith(`| \`${code}\` |`));
      expect(rows.join('\n'), `docs/error-codes.md row for ${code}`).to.include(`\`${message}\``);
    }
  });
});
