// docs/error-codes.md against the codes the reference service declares: its table is the
// one scripts/error-codes-page.mjs generates from the core's table and the plugins' errors.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { declaredErrors, PAGE, withCurrentTable } from '../scripts/error-codes-page.mjs';

describe('docs/error-codes.md', () => {
  const page = readFileSync(PAGE, 'utf8');

  it('has a row for every code the core and the plugins declare, with its message', () => {
    for (const { code, message } of declaredErrors()) {
      const rows = page.split('\n').filter((l) => new RegExp(`^\\| +\`${code}\` +\\|`).test(l));
      expect(rows, `row for ${code}`).to.have.length(1);
      expect(rows[0]).to.include(`\`${message}\``);
    }
  });

  it('its table is current (npm run docs:errors writes it)', async () => {
    expect(page).to.equal(await withCurrentTable(page));
  });
});
