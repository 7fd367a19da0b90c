import { expect } from 'chai';
import { createNodeListener, createRpc, defineMethod, definePlugin, type Plugin } from '@rollup-router/core';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';

const CALL = '{"jsonrpc":"2.0","id":1,"method":"whoStarted"}';

/** A plugin whose method needs its start() to have run, and that counts its starts. */
function needsStart(failFirstStarts = 0): Plugin & { starts: number } {
  const state = { starts: 0, started: false };
  const plugin = definePlugin({
    name: 'needs-start',
    methods: [
      defineMethod<[], string>({
        name: 'whoStarted',
        handler: () => {
          if (!state.started) throw new Error('used before start');
          return `started ${state.starts} time(s)`;
        },
      }),
    ],
    start: () => {
      state.starts++;
      if (state.starts <= failFirstStarts) throw new Error('store not reachable');
      state.started = true;
    },
    stop: () => {
      state.started = false;
    },
    get starts() {
      return state.starts;
    },
  });
  return plugin;
}

describe('an embedder who forgets await rpc.start()', () => {
  const servers: Listening[] = [];
  afterEach(() => Promise.all(servers.splice(0).map((s) => s.close())));

  it('gets the plugins started on the first call, once, with one warning', async () => {
    const log = memoryLog();
    const plugin = needsStart();
    const rpc = createRpc({ logger: log.log, plugins: [plugin] });
    const server = await listen(createNodeListener(rpc));
    servers.push(server);
    const answers = await Promise.all([
      post(server.url, CALL),
      post(server.url, CALL),
      post(server.url, CALL),
    ]);
    for (const a of answers) expect(a.text).to.equal('{"jsonrpc":"2.0","result":"started 1 time(s)","id":1}');
    expect(plugin.starts).to.equal(1);
    await rpc.start(); // an explicit start afterwards is the same start
    expect(plugin.starts).to.equal(1);
    const warnings = log.lines.filter((l) => l.level === 40);
    expect(warnings.map((l) => l.msg)).to.deep.equal([
      'rpc.start() was not awaited before the first call; starting the plugins now',
    ]);
    await rpc.stop();
  });

  it('a start that fails answers -32603, is logged, and is tried again by the next call', async () => {
    const log = memoryLog();
    const plugin = needsStart(1);
    const rpc = createRpc({ logger: log.log, plugins: [plugin] });
    const server = await listen(createNodeListener(rpc));
    servers.push(server);
    const failed = await post(server.url, CALL);
    expect(JSON.parse(failed.text).error.code).to.equal(-32603);
    expect(
      log.lines.some((l) => l.level === 50 && JSON.stringify(l).includes('store not reachable')),
    ).to.equal(true);
    expect((await post(server.url, CALL)).text).to.equal(
      '{"jsonrpc":"2.0","result":"started 2 time(s)","id":1}',
    );
    await rpc.stop();
  });

  it('a service stopped on purpose is not started again by a late call', async () => {
    const plugin = needsStart();
    const rpc = createRpc({ logger: memoryLog().log, plugins: [plugin] });
    await rpc.start();
    await rpc.stop();
    const server = await listen(createNodeListener(rpc));
    servers.push(server);
    expect(JSON.parse((await post(server.url, CALL)).text).error.code).to.equal(-32603);
    expect(plugin.starts).to.equal(1);
  });
});
