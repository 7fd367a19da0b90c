// The server's config takes rateLimit.trustProxy by reference to the core options schema.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '@rollup-router/server';

describe('server config: rateLimit.trustProxy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trust-proxy-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const load = (trustProxy: unknown) => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ routes: { routes: [] }, rateLimit: { points: 5, durationSeconds: 1, trustProxy } }),
    );
    return loadConfig({ file });
  };

  for (const value of [true, false, 2, ['loopback', '10.0.0.0/8', '203.0.113.7']]) {
    it(`accepts ${JSON.stringify(value)}`, async () => {
      const { config } = await load(value);
      expect((config.rateLimit as { trustProxy: unknown }).trustProxy).to.deep.equal(value);
    });
  }

  it('refuses a negative hop count and a non-string list entry, naming the key', async () => {
    for (const bad of [-1, [1]]) {
      let err: unknown;
      await load(bad).catch((e: unknown) => (err = e));
      expect(String(err)).to.include('rateLimit');
    }
  });
});
