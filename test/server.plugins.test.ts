// The reference server runs your methods: plugin modules from --plugin or the config's
// `plugins`, served with the server's /health, /ready, /metrics, signals and drain.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { get, REPO, rpc, runCli, serveForSuite, startCli, tempDir, writeJson } from './server.harness.js';

/** tsx by URL: the example is TypeScript, and `--import tsx` would resolve from the working directory. */
const TSX = import.meta.resolve('tsx');
const CORE = pathToFileURL(join(REPO, 'packages/core/dist/index.js')).href;

describe('rollup-router --plugin examples/server-plugin.ts', function () {
  this.timeout(60_000);
  const served = serveForSuite(
    { statuses: { store: false } },
    { args: ['--plugin', './examples/server-plugin.ts'], nodeOptions: ['--import', TSX] },
  );

  it('serves the plugin’s method on both endpoint styles, validated by its schema', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'getGreeting', params: { name: 'Ada' } };
    expect((await rpc(`${served.server.base}/`, call)).json).to.deep.equal({
      jsonrpc: '2.0',
      result: 'Hello, Ada!',
      id: 1,
    });
    expect((await rpc(`${served.server.base}/getGreeting`, call)).json.result).to.equal('Hello, Ada!');
    const bad = await rpc(`${served.server.base}/`, { ...call, params: { name: '' } });
    expect((bad.json.error as { code: number }).code).to.equal(-32602);
  });

  it('lists it in rpc.discover and counts it in /metrics', async () => {
    const doc = await rpc(`${served.server.base}/`, { jsonrpc: '2.0', id: 2, method: 'rpc.discover' });
    const names = (doc.json.result as { methods: { name: string }[] }).methods.map((m) => m.name);
    expect(names).to.include.members(['getGreeting', 'getRoutes', 'getSignatureStatuses']);
    const metrics = await get(`${served.server.base}/metrics`);
    expect(metrics.text).to.match(/rollup_router_calls_total\{method="getGreeting",code="0"\} [1-9]/);
  });

  it('stops the plugin with the server on SIGTERM, exit 0', async () => {
    served.server.signal('SIGTERM');
    expect(await served.server.exited).to.equal(0);
    expect(served.server.logs().some((l) => l.msg === 'greetings stopped' && l.served === 2)).to.equal(true);
  });
});

describe('rollup-router: plugins from the config file, paths relative to the file', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let elsewhere: ReturnType<typeof tempDir>;

  beforeEach(() => {
    tmp = tempDir();
    elsewhere = tempDir();
    writeFileSync(
      join(tmp.dir, 'echo-plugin.mjs'),
      `import { defineMethod, definePlugin } from '${CORE}';
export default (options) =>
  definePlugin({
    name: 'echo',
    methods: [defineMethod({ name: 'echo', params: { type: 'array' }, handler: (params) => ({ prefix: options.prefix, params }) })],
  });
`,
    );
  });
  afterEach(() => {
    tmp.remove();
    elsewhere.remove();
  });

  it('loads {module, options} relative to the config file, from another working directory', async () => {
    const config = writeJson(join(tmp.dir, 'config.json'), {
      statuses: { store: false },
      plugins: [{ module: './echo-plugin.mjs', options: { prefix: 'got' } }],
    });
    const server = await startCli(['--config', config, '--port', '0'], {}, elsewhere.dir);
    try {
      const answer = await rpc(`${server.base}/`, {
        jsonrpc: '2.0',
        id: 1,
        method: 'echo',
        params: [1, 'a'],
      });
      expect(answer.json.result).to.deep.equal({ prefix: 'got', params: [1, 'a'] });
    } finally {
      await server.kill();
    }
  });

  it('check-config loads the plugin modules it names, from another working directory', async () => {
    const good = writeJson(join(tmp.dir, 'good.json'), {
      plugins: [{ module: './echo-plugin.mjs', options: {} }],
    });
    const ok = await runCli(['check-config', good], {}, elsewhere.dir);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.include('1 plugin module(s), 1 method(s)');
    const bad = writeJson(join(tmp.dir, 'bad.json'), { plugins: ['./missing.mjs'] });
    const refused = await runCli(['check-config', bad], {}, elsewhere.dir);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('missing.mjs: cannot be loaded');
  });

  it('a plugin module that cannot be loaded stops the server before it listens: stderr, exit 2', async () => {
    const config = writeJson(join(tmp.dir, 'config.json'), {
      statuses: { store: false },
      plugins: ['./missing.mjs'],
    });
    const r = await runCli(['--config', config, '--port', '0'], {}, elsewhere.dir);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include(`plugin module ${join(tmp.dir, 'missing.mjs')}: cannot be loaded`);
    expect(r.stdout).not.to.include('listening');
  });

  it('a method with no handler, or a misspelled key, is exit 2 naming the module, the plugin, the method and the key', async () => {
    writeFileSync(
      join(tmp.dir, 'no-handler.mjs'),
      "export default { name: 'greet', methods: [{ name: 'hello', params: { type: 'array' } }] };\n",
    );
    writeFileSync(
      join(tmp.dir, 'misspelled.mjs'),
      "export default { nmae: 'greet', methods: [{ name: 'hello', handler: () => 'hi' }] };\n",
    );
    const noHandler = await runCli(
      ['--port', '0', '--plugin', join(tmp.dir, 'no-handler.mjs')],
      {},
      elsewhere.dir,
    );
    expect(noHandler.code, noHandler.stdout).to.equal(2);
    expect(noHandler.stderr).to.include(
      `plugin module ${join(tmp.dir, 'no-handler.mjs')}: plugin "greet", method "hello": no handler: handler must be a function`,
    );
    expect(noHandler.stdout).not.to.include('listening');
    const config = writeJson(join(tmp.dir, 'misspelled.json'), { plugins: ['./misspelled.mjs'] });
    const misspelled = await runCli(['check-config', config], {}, elsewhere.dir);
    expect(misspelled.code).to.equal(2);
    expect(misspelled.stderr).to.include('unknown key "nmae": did you mean "name"?');
  });

  it('a default export that is no plugin, or a method name served twice, is exit 2 naming the cause', async () => {
    writeFileSync(join(tmp.dir, 'not-a-plugin.mjs'), 'export default 42;\n');
    writeFileSync(
      join(tmp.dir, 'clash.mjs'),
      `import { defineMethod } from '${CORE}';
export default { name: 'clash', methods: [defineMethod({ name: 'getRoutes', handler: () => [] })] };
`,
    );
    const notPlugin = await runCli(
      ['--port', '0', '--plugin', join(tmp.dir, 'not-a-plugin.mjs')],
      {},
      elsewhere.dir,
    );
    expect(notPlugin.code).to.equal(2);
    expect(notPlugin.stderr).to.include('the default export must be a Plugin');
    const clash = await runCli(['--port', '0', '--plugin', join(tmp.dir, 'clash.mjs')], {}, elsewhere.dir);
    expect(clash.code).to.equal(2);
    expect(clash.stderr).to.include('method "getRoutes" is defined by both');
  });
});
