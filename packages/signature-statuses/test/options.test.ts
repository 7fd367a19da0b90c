import { expect } from 'chai';
import { createLogger } from '@rollup-router/core';
import { signatureStatusesPlugin, statusesPluginOptionsSchema } from '../src/index.js';
import { randomSignature } from './support/fixtures.js';

const schemaDefault = (...path: string[]): unknown => {
  let node = statusesPluginOptionsSchema as Record<string, unknown>;
  for (const key of path) node = (node.properties as Record<string, Record<string, unknown>>)[key]!;
  return node.default;
};

describe('signature statuses: options', () => {
  it('fills every default from the options schema', () => {
    const { options } = signatureStatusesPlugin();
    expect(options.apiVersion).to.equal(schemaDefault('apiVersion'));
    expect(options.memory.maxEntries).to.equal(schemaDefault('memory', 'maxEntries'));
    expect(options.memory.unfinalizedTtlMs).to.equal(schemaDefault('memory', 'unfinalizedTtlMs'));
    expect(options.store).to.equal(schemaDefault('store'));
    expect(options.upstreamTimeoutMs).to.equal(schemaDefault('upstreamTimeoutMs'));
    expect(options.deadlineMs).to.equal(schemaDefault('deadlineMs'));
    expect(options.maxTracked).to.equal(schemaDefault('maxTracked'));
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    [
      'an upstream URL that is not http(s)',
      { upstreams: [{ url: 'ftp://node.example' }] },
      /\/upstreams\/0\/url/,
    ],
    ['an unknown option', { upstream: 'http://x' }, /upstream.*additionalProperties/],
    ['a store without a path', { store: {} }, /\/store/],
    ['a negative TTL', { memory: { unfinalizedTtlMs: -1 } }, /\/memory\/unfinalizedTtlMs/],
  ];
  for (const [what, options, message] of invalid) {
    it(`refuses ${what}, naming it`, () => {
      expect(() => signatureStatusesPlugin(options)).to.throw(TypeError, message);
    });
  }

  it('refuses lookups before start() and after stop()', async () => {
    const plugin = signatureStatusesPlugin();
    await plugin.lookup([randomSignature()]).then(
      () => expect.fail('answered before start'),
      (e: Error) => expect(e.message).to.match(/before start/),
    );
    await plugin.start!({ log: createLogger({ level: 'silent' }) });
    await plugin.stop!();
    await plugin.lookup([randomSignature()]).then(
      () => expect.fail('answered after stop'),
      (e: Error) => expect(e.message).to.match(/after stop/),
    );
  });
});
