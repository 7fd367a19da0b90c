import { expect } from 'chai';
import { defineMethod, definePlugin } from '@rollup-router/core';
import { pino } from 'pino';
import { loadConfig } from '../src/config/load-config.js';
import { startServer, type RunningServer } from '../src/server.js';

describe('startServer(config, { plugins })', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.shutdown(0);
    server = undefined;
  });

  it('serves the given plugins beside getRoutes and getSignatureStatuses, and stops them on shutdown', async () => {
    const events: string[] = [];
    const plugin = definePlugin({
      name: 'clock',
      methods: [defineMethod({ name: 'getAnswer', handler: () => 42 })],
      start: () => void events.push('start'),
      stop: () => void events.push('stop'),
    });
    const { config } = await loadConfig({ env: { PORT: '0', ROLLUP_ROUTER_STORE_PATH: 'off' } });
    server = await startServer(config, { logger: pino({ level: 'silent' }), plugins: [plugin] });
    expect(server.rpc.methodNames).to.include.members(['getRoutes', 'getSignatureStatuses', 'getAnswer']);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAnswer' }),
    });
    expect(await res.json()).to.deep.equal({ jsonrpc: '2.0', result: 42, id: 1 });
    await server.shutdown(0);
    expect(events).to.deep.equal(['start', 'stop']);
  });
});
