import { expect } from 'chai';
import { RouteListError, RouteRegistry, type RouteEntry, type RoutesOptions } from '../src/index.js';
import { memoryLog } from '@rollup-router/test-support/http';
import { newIdentity } from '@rollup-router/test-support/solana';

const node = (over: Record<string, unknown> = {}): RouteEntry =>
  ({
    identity: newIdentity(),
    fqdn: 'https://er-1.example.com',
    baseFee: 5000,
    blockTimeMs: 50,
    countryCode: 'DEU',
    ...over,
  }) as RouteEntry;

/** Starts a registry; resolves to it, or to the RouteListError start threw. */
async function start(options: RoutesOptions): Promise<RouteRegistry | RouteListError> {
  const registry = new RouteRegistry(options);
  try {
    await registry.start({ log: memoryLog().log });
    return registry;
  } catch (err) {
    if (err instanceof RouteListError) return err;
    throw err;
  }
}

async function issuesOf(routes: unknown[], options: Omit<RoutesOptions, 'routes'> = {}) {
  const result = await start({ ...options, routes: routes as RouteEntry[] });
  if (result instanceof RouteRegistry) {
    await result.stop();
    throw new Error('expected the list to be refused');
  }
  return result.issues.map(({ index, field, rule }) => ({ index, field, rule }));
}

describe('route list validation', () => {
  it('serves a valid list in its order, each entry with exactly the five members in wire order', async () => {
    const a = node({ countryCode: 'USA' });
    const b = node();
    // Members in another order, as a YAML file or a database row may have them.
    const shuffled = {
      countryCode: b.countryCode,
      blockTimeMs: b.blockTimeMs,
      baseFee: b.baseFee,
      fqdn: b.fqdn,
      identity: b.identity,
    };
    const registry = (await start({ routes: [a, shuffled as RouteEntry] })) as RouteRegistry;
    expect(registry.available()).to.deep.equal([a, b]);
    expect(registry.available().map((e) => Object.keys(e))).to.deep.equal([
      ['identity', 'fqdn', 'baseFee', 'blockTimeMs', 'countryCode'],
      ['identity', 'fqdn', 'baseFee', 'blockTimeMs', 'countryCode'],
    ]);
    expect(registry.snapshot().raw.json).to.equal(JSON.stringify([a, b]));
    await registry.stop();
  });

  it('names the entry, field and rule of each bad entry, every one of them', async () => {
    const issues = await issuesOf([
      node(),
      node({ identity: 'not-base58-0OIl' }),
      node({ identity: newIdentity().slice(0, 20) }),
      node({ baseFee: -1 }),
      node({ baseFee: '0' }),
      node({ blockTimeMs: 0 }),
      node({ blockTimeMs: 1.5 }),
      node({ countryCode: 'XXX' }),
      node({ extra: true }),
      { identity: newIdentity(), fqdn: 'https://er.example.com', baseFee: 0, blockTimeMs: 50 },
    ]);
    expect(issues).to.deep.equal([
      { index: 1, field: 'identity', rule: 'base58Bytes' },
      { index: 2, field: 'identity', rule: 'base58Bytes' },
      { index: 3, field: 'baseFee', rule: 'minimum' },
      { index: 4, field: 'baseFee', rule: 'type' },
      { index: 5, field: 'blockTimeMs', rule: 'exclusiveMinimum' },
      { index: 6, field: 'blockTimeMs', rule: 'type' },
      { index: 7, field: 'countryCode', rule: 'enum' },
      { index: 8, field: 'extra', rule: 'additionalProperties' },
      { index: 9, field: 'countryCode', rule: 'required' },
    ]);
  });

  it('lists every issue of one entry at once, member by member, with the https rule on top', async () => {
    const issues = await issuesOf([
      node(),
      node({ identity: '0OIl', fqdn: 'http://er.example.com', baseFee: -1, countryCode: 'XXX', extra: 1 }),
      { fqdn: 'https://er.example.com', baseFee: 0 },
      'not an entry',
    ]);
    expect(issues).to.deep.equal([
      { index: 1, field: 'extra', rule: 'additionalProperties' },
      { index: 1, field: 'identity', rule: 'base58Bytes' },
      { index: 1, field: 'baseFee', rule: 'minimum' },
      { index: 1, field: 'countryCode', rule: 'enum' },
      { index: 1, field: 'fqdn', rule: 'pattern' },
      { index: 2, field: 'identity', rule: 'required' },
      { index: 2, field: 'blockTimeMs', rule: 'required' },
      { index: 2, field: 'countryCode', rule: 'required' },
      { index: 3, field: undefined, rule: 'type' },
    ]);
  });

  it('tells base58 that is not base58 from base58 of the wrong size', async () => {
    const result = (await start({
      routes: [node({ identity: '0OIl' }), node({ identity: '1111' })],
    })) as RouteListError;
    expect(result.issues.map((i) => i.message)).to.deep.equal([
      'must be base58 text',
      'must decode to 32 bytes',
    ]);
  });

  it('accepts only https:// base URLs unless allowInsecure, which permits http://', async () => {
    const local = node({ fqdn: 'http://127.0.0.1:18899' });
    expect(await issuesOf([node(), local])).to.deep.equal([{ index: 1, field: 'fqdn', rule: 'pattern' }]);
    const registry = (await start({ routes: [node(), local], allowInsecure: true })) as RouteRegistry;
    expect(registry.available()[1]).to.deep.equal(local);
    await registry.stop();
  });

  it('refuses base URLs that are relative, carry credentials, a query or a fragment, or use another scheme', async () => {
    const bad = [
      'er-1.example.com',
      '/rpc',
      'https://user:secret@er-1.example.com',
      'https://er-1.example.com/?api-key=secret',
      'https://er-1.example.com/#x',
      'ftp://er-1.example.com',
      'https://',
      'https://er 1.example.com',
    ];
    const issues = await issuesOf(
      bad.map((fqdn) => node({ fqdn })),
      { allowInsecure: true },
    );
    expect(issues.map((i) => i.index)).to.deep.equal(bad.map((_, i) => i));
    expect(issues.every((i) => i.field === 'fqdn')).to.equal(true);
    // A base path is fine (a node behind a reverse proxy).
    const ok = (await start({
      routes: [node({ fqdn: 'https://rpc.example.com:8443/er/eu-1' })],
    })) as RouteRegistry;
    expect(ok.available()).to.have.length(1);
    await ok.stop();
  });

  it('refuses a duplicate identity, naming both entries', async () => {
    const a = node();
    const result = (await start({ routes: [a, node(), node({ identity: a.identity })] })) as RouteListError;
    expect(result.issues).to.deep.equal([
      {
        source: 'inline routes',
        index: 2,
        field: 'identity',
        rule: 'uniqueIdentity',
        message: `identity ${a.identity} is already used by entry 0`,
      },
    ]);
    expect(result.message).to.equal(
      `inline routes, entry 2, field identity: identity ${a.identity} is already used by entry 0 (uniqueIdentity)`,
    );
  });

  it('refuses options that do not match the options schema, naming the path and rule', () => {
    expect(() => new RouteRegistry({ health: { intervalMs: 0 } })).to.throw(TypeError, '/health/intervalMs');
    expect(() => new RouteRegistry({ file: '' })).to.throw(TypeError, '(minLength)');
    expect(() => new RouteRegistry({ unknown: 1 } as RoutesOptions)).to.throw(
      TypeError,
      'additionalProperties',
    );
  });
});
