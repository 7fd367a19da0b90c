import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { getHttpStatusCode, HttpRefusal, type HttpRefusalName } from '@rollup-router/core';

describe('the one table of HTTP statuses', () => {
  const readme = readFileSync(new URL('../docs/error-codes.md', import.meta.url), 'utf8').split('\n');

  it('a reply made of calls is 200; each refusal has its status', () => {
    expect(getHttpStatusCode(undefined)).to.equal(200);
    for (const [name, row] of Object.entries(HttpRefusal)) {
      expect(getHttpStatusCode(name as HttpRefusalName)).to.equal(row.status);
    }
  });

  it('the error table of docs/error-codes.md has a row for every refusal a client can see, with its code and status', () => {
    // INCOMPLETE_BODY answers a client that is gone: nobody reads it.
    for (const [name, { status, code }] of Object.entries(HttpRefusal)) {
      if (name === 'INCOMPLETE_BODY') continue;
      const row = readme.find(
        (l) => l.startsWith(`| \`${code}\` |`) && new RegExp(`\\| ${status} +\\|`).test(l),
      );
      expect(row, `${name}: ${code} with HTTP ${status}`).to.not.equal(undefined);
    }
  });
});
