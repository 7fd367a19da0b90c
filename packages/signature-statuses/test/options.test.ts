import { expect } from 'chai';
import { createLogger, ProviderSet } from '@rollup-router/core';
import { signatureStatusesPlugin } from '../src/index.js';
import { randomSignature } from '@rollup-router/test-support/solana';

describe('signature statuses: options', () => {
  const invalid: [string, Record<string, unknown>, RegExp][] = [
    [
      'an upstream URL that is not http(s)',
      { upstreams: [{ url: 'ftp://node.example' }] },
      /\/upstreams\/0\/url/,
    ],
    ['an unknown option', { upstream: 'http://x' }, /upstream.*additionalProperties/],
    // Inside the store's oneOf (false or an object): the member at fault, not "must be equal to constant".
    [
      'a store without a path',
      { store: {} },
      /\/store\/path must have required property 'path' \(required\)/,
    ],
    [
      'a store cache of 0 MiB',
      { store: { path: 'x.db', cacheMiB: 0 } },
      /\/store\/cacheMiB must be >= 1 \(minimum\)/,
    ],
    ['store: true', { store: true }, /\/store must be one of: false, an object \{path, cacheMiB\} \(oneOf\)/],
    ['a negative TTL', { memory: { unfinalizedTtlMs: -1 } }, /\/memory\/unfinalizedTtlMs/],
    [
      'an upstream name with a space or a slash',
      { upstreams: [{ url: 'http://a.example', name: 'a b/c' }] },
      /\/upstreams\/0\/name must match pattern/,
    ],
    [
      'two upstreams of one name',
      {
        upstreams: [
          { url: 'http://a.example', name: 'node' },
          { url: 'http://b.example', name: 'node' },
        ],
      },
      /\/upstreams\/1\/name "node" is also the name of \/upstreams\/0; names must be unique/,
    ],
  ];
  describe('upstreamProviders for an upstream it does not have', () => {
    const providers = new ProviderSet({
      providers: [{ name: 'a', url: 'http://a.example' }],
      freshness: async () => 1,
      maxLag: 1,
      probeIntervalMs: 1000,
      maxBackoffMs: 1000,
      probeTimeoutMs: 1000,
    });
    const withProvidersFor = (name: string) => () =>
      signatureStatusesPlugin({
        upstreams: [{ url: 'http://a.example', name: 'base-chain' }],
        upstreamProviders: { [name]: { providers, wsUrl: () => 'ws://a.example' } },
      });

    it('is refused with the option path, naming the upstream it most likely meant', () => {
      expect(withProvidersFor('base-chian')).to.throw(
        TypeError,
        'signature-statuses options: /upstreamProviders names "base-chian", which is not a configured upstream (did you mean "base-chain"?)',
      );
    });

    it('is refused with the option path, and no guess when no name is close', () => {
      expect(withProvidersFor('mainnet')).to.throw(
        TypeError,
        /^signature-statuses options: \/upstreamProviders names "mainnet", which is not a configured upstream$/,
      );
    });
  });

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
