// The codes the real service declares: core and plugins (docs/error-codes.md is generated from them).
import { expect } from 'chai';
import { createLogger, createRpc } from '@rollup-router/core';
import { routesPlugin } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';

describe('error codes of the reference service', () => {
  const rpc = createRpc({
    logger: createLogger({ level: 'silent' }),
    plugins: [routesPlugin({ routes: [] }), signatureStatusesPlugin()],
  });
  const errors = rpc.discover()['x-errors'];

  it('includes the statuses plugin codes, declared by that plugin', () => {
    const mine = errors.filter((e) => e.owner === 'signature-statuses').map((e) => e.code);
    expect(mine).to.deep.equal([-32060, -32061, -32062, -32063, -32064]);
  });
});
