// The server's config takes trustProxy (and its deprecated alias rateLimit.trustProxy) by
// reference to the core options schema, from the file or ROLLUP_ROUTER_TRUST_PROXY.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '@rollup-router/server';
import { startWith } from '@rollup-router/test-support/ws-server';
import { refusedUpgrade, TestSocket } from '@rollup-router/test-support/ws-client';

describe('server config: trustProxy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trust-proxy-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const load = (settings: Record<string, unknown>, env: Record<string, string> = {}) => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ routes: { routes: [] }, ...settings }));
    return loadConfig({ file, env });
  };
  const values = [true, false, 2, ['loopback', '10.0.0.0/8', '203.0.113.7']];

  for (const value of values) {
    it(`accepts ${JSON.stringify(value)} at the top level and as the deprecated rateLimit.trustProxy`, async () => {
      expect((await load({ trustProxy: value })).config.trustProxy).to.deep.equal(value);
      const { config } = await load({ rateLimit: { points: 5, durationSeconds: 1, trustProxy: value } });
      expect((config.rateLimit as { trustProxy: unknown }).trustProxy).to.deep.equal(value);
    });
  }

  it('refuses a negative hop count and a non-string list entry, naming the key', async () => {
    for (const bad of [-1, [1]]) {
      let err: unknown;
      await load({ rateLimit: { points: 5, durationSeconds: 1, trustProxy: bad } }).catch(
        (e: unknown) => (err = e),
      );
      expect(String(err)).to.include('rateLimit');
      err = undefined;
      await load({ trustProxy: bad }).catch((e: unknown) => (err = e));
      expect(String(err)).to.include('trustProxy');
    }
  });

  it('ROLLUP_ROUTER_TRUST_PROXY sets it: true, off, a hop count or a list', async () => {
    const env = (v: string) => load({}, { ROLLUP_ROUTER_TRUST_PROXY: v });
    expect((await env('true')).config.trustProxy).to.equal(true);
    expect((await env('off')).config.trustProxy).to.equal(false);
    expect((await env('2')).config.trustProxy).to.equal(2);
    expect((await env('loopback, 10.0.0.0/8')).config.trustProxy).to.deep.equal(['loopback', '10.0.0.0/8']);
  });

  it('the running server keys its per-address WebSocket connection limit on the forwarded client', async () => {
    const server = await startWith({
      trustProxy: ['loopback'],
      websocket: { port: false, limits: { maxConnectionsPerIp: 1 } },
    });
    try {
      const ws = server.url.replace(/^http/, 'ws');
      const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
      const a = await TestSocket.open(ws, from('198.51.100.1'));
      const b = await TestSocket.open(ws, from('198.51.100.2'));
      expect((await refusedUpgrade(ws, { 'x-forwarded-for': '198.51.100.1' })).status).to.equal(429);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await server.shutdown(0);
      server.cleanup();
    }
  });
});
