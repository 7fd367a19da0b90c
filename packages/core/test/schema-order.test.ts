import { expect } from 'chai';
import { inSchemaOrder, type Schema } from '@rollup-router/core';

describe('inSchemaOrder: the wire order is the schema order', () => {
  const schema: Schema = {
    type: 'object',
    properties: { identity: { type: 'string' }, fqdn: { type: 'string' }, baseFee: { type: 'number' } },
  };

  it('writes the members in the order the schema lists them, whatever order they were set in', () => {
    const order = inSchemaOrder<Record<string, unknown>>(schema);
    expect(JSON.stringify(order({ baseFee: 0, fqdn: 'https://a.example', identity: 'x' }))).to.equal(
      '{"identity":"x","fqdn":"https://a.example","baseFee":0}',
    );
  });

  it('keeps null members, leaves out absent ones and members the schema does not list', () => {
    const order = inSchemaOrder<Record<string, unknown>>(schema);
    expect(JSON.stringify(order({ extra: 1, baseFee: null, identity: 'x' }))).to.equal(
      '{"identity":"x","baseFee":null}',
    );
  });

  it('refuses a schema without properties at creation', () => {
    expect(() => inSchemaOrder({ type: 'string' })).to.throw(TypeError, /properties/);
  });
});
