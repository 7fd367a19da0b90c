import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { ErrorInfo } from '@rollup-router/core';

describe('README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('lists every error code of the codes table with its message', () => {
    for (const [code, info] of Object.entries(ErrorInfo)) {
      const rows = readme.split('\n').filter((l) => l.startsWith(`| \`${code}\` |`));
      expect(rows, `README rows for ${code}`).to.not.deep.equal([]);
      expect(rows.join('\n')).to.include(`\`${info.message}\``);
    }
  });

  it('shows the two set-up commands', () => {
    expect(readme).to.include('npm ci && npm start').and.include('npm test');
  });
});
