import { expect } from 'chai';
import { getHttpStatusCode, HttpRefusal, type HttpRefusalName } from '@rollup-router/core';

describe('the one table of HTTP statuses', () => {
  it('a reply made of calls is 200; each refusal has its status', () => {
    expect(getHttpStatusCode(undefined)).to.equal(200);
    for (const [name, row] of Object.entries(HttpRefusal)) {
      expect(getHttpStatusCode(name as HttpRefusalName)).to.equal(row.status);
    }
  });
});
