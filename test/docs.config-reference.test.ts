import { expect } from 'chai';
import { readFileSync } from 'node:fs';
// @ts-expect-error: a plain ESM script of the repository, without types
import { configReference, PAGE } from '../scripts/config-reference.mjs';

describe('docs/configuration-reference.md', () => {
  it('is what the config schema and the environment table make of it (run `npm run docs` after changing either)', async () => {
    const expected = (await configReference()) as string;
    expect(readFileSync(PAGE as string, 'utf8')).to.equal(expected);
  });

  it('names every key of the schema and every environment variable', async () => {
    const page = readFileSync(PAGE as string, 'utf8');
    const { ENV_OVERRIDES } = await import('../packages/server/dist/config/env-overrides.js');
    for (const o of ENV_OVERRIDES) expect(page).to.include(`| \`${o.name}\` |`);
    for (const key of ['host', 'statuses.upstreams', 'routes.chain.url', 'redis.url', 'shutdown.graceMs']) {
      expect(page).to.include(`| \`${key}\``);
    }
  });
});
