// docs/solana-methods.md against the delegation router's method table: its table is the one
// scripts/solana-methods-page.mjs generates from it.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { METHOD_TABLE, SUBSCRIPTION_TABLE } from '@rollup-router/delegation-router';
import { PAGE, withCurrentTable } from '../scripts/solana-methods-page.mjs';

describe('docs/solana-methods.md', () => {
  const page = readFileSync(PAGE, 'utf8');

  it('has a row for every method of the table', () => {
    for (const method of Object.keys(METHOD_TABLE)) {
      expect(
        page.split('\n').filter((l) => l.startsWith(`| \`${method}\` `)),
        method,
      ).to.have.length(1);
    }
  });

  it('has a row for every subscription of the websocket table', () => {
    for (const method of Object.keys(SUBSCRIPTION_TABLE)) {
      expect(
        page.split('\n').filter((l) => l.startsWith(`| \`${method}\` `)),
        method,
      ).to.have.length(1);
    }
  });

  it('its table is current (npm run docs:methods writes it)', async () => {
    expect(page).to.equal(await withCurrentTable(page));
  });
});
