import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { RouteListError, RouteRegistry, type RouteEntry } from '../src/index.js';
import { memoryLog } from '@rollup-router/test-support/http';
import { newIdentity } from '@rollup-router/test-support/solana';

const require = createRequire(import.meta.url);
const countries = require('i18n-iso-countries') as { getAlpha3Codes(): Record<string, string> };
const schemaFile = new URL('../../../schemas/country-code.schema.json', import.meta.url);

const entry = (countryCode: string): RouteEntry =>
  ({
    identity: newIdentity(),
    fqdn: 'https://er.example.com',
    baseFee: 0,
    blockTimeMs: 50,
    countryCode,
  }) as RouteEntry;

async function startWith(routes: RouteEntry[]): Promise<RouteRegistry> {
  const registry = new RouteRegistry({ routes });
  await registry.start({ log: memoryLog().log });
  return registry;
}

describe('country codes', () => {
  it("schemas/country-code.schema.json lists exactly i18n-iso-countries' current alpha-3 codes", async () => {
    const schema = JSON.parse(await readFile(schemaFile, 'utf8')) as { enum: string[] };
    const current = Object.keys(countries.getAlpha3Codes()).sort();
    expect(current.length).to.be.greaterThan(200);
    expect(schema.enum).to.deep.equal(current, 'run `npm run gen:country-codes -w @rollup-router/routes`');
  });

  it('accepts a real country and refuses made-up or lower-case codes', async () => {
    const registry = await startWith([entry('DEU'), entry('USA')]);
    expect(registry.available().map((e) => e.countryCode)).to.deep.equal(['DEU', 'USA']);
    await registry.stop();

    for (const code of ['ZZZ', 'deu', 'DE', 'GERMANY']) {
      const err = await startWith([entry(code)]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, code).to.be.instanceOf(RouteListError);
      expect((err as RouteListError).issues).to.deep.include({
        source: 'inline routes',
        index: 0,
        field: 'countryCode',
        rule: 'enum',
        message: 'must be equal to one of the allowed values',
      });
    }
  });
});
