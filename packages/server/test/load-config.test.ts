import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig } from '../src/config/load-config.js';
import { exampleRoutesFile } from '../src/paths.js';

describe('loadConfig', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'server-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  const rejection = async (promise: Promise<unknown>): Promise<ConfigError> => {
    try {
      await promise;
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      return err as ConfigError;
    }
    throw new Error('expected a ConfigError');
  };

  it('without a file: the example routes, a store under ./data of the working directory, 127.0.0.1:8080', async () => {
    const { config, source } = await loadConfig();
    expect(source).to.equal('embedded defaults');
    expect(config.routes.file).to.equal(exampleRoutesFile);
    expect(config.routes.health).to.equal(undefined);
    expect(config.statuses.store).to.deep.equal({ path: resolve('data/statuses.sqlite') });
    expect(config.statuses.upstreams).to.deep.equal([]);
    expect([config.host, config.port]).to.deep.equal(['127.0.0.1', 8080]);
  });

  it('embedded defaults pointed at a chain list the chain alone, not the example nodes beside it', async () => {
    const { config } = await loadConfig({
      env: { ROLLUP_ROUTER_CHAIN_URL: 'https://api.devnet.solana.com' },
    });
    expect(config.routes.chain?.url).to.equal('https://api.devnet.solana.com');
    expect(config.routes.file).to.equal(undefined);
    const withFile = await loadConfig({
      env: { ROLLUP_ROUTER_CHAIN_URL: 'https://api.devnet.solana.com', ROLLUP_ROUTER_ROUTES_FILE: 'r.json' },
    });
    expect(withFile.config.routes.file).to.equal(resolve('r.json'));
  });

  it('registry nodes on private addresses are refused by default; ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES allows them', async () => {
    const chainOnly = { ROLLUP_ROUTER_CHAIN_URL: 'http://127.0.0.1:17799' };
    expect((await loadConfig({ env: chainOnly })).config.routes.chain?.allowPrivateAddresses).to.equal(false);
    const { config } = await loadConfig({
      env: { ...chainOnly, ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES: 'true' },
    });
    expect(config.routes.chain).to.include({ url: 'http://127.0.0.1:17799', allowPrivateAddresses: true });
    const err = await rejection(
      loadConfig({ env: { ...chainOnly, ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES: 'maybe' } }),
    );
    expect(err.message).to.include('ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES');
  });

  it('a file that states only some keys gets the schema defaults for the rest, the store included', async () => {
    const { config } = await loadConfig({
      file: file('c.json', '{"statuses": {"upstreams": [{"url": "http://127.0.0.1:1"}]}}'),
    });
    expect(config.statuses.store).to.deep.equal({ path: resolve('data/statuses.sqlite') });
    expect(config.routes.file).to.equal(undefined);
    expect(config.limits.maxBodyBytes).to.be.a('number');
    expect(config.endpoints).to.deep.equal({
      mountPath: '/',
      root: true,
      pathStyle: true,
      pathStyleEnvelope: 'specification',
    });
  });

  it('store: false turns the store off', async () => {
    const { config } = await loadConfig({ file: file('c.yaml', 'statuses:\n  store: false\n') });
    expect(config.statuses.store).to.equal(false);
  });

  it('precedence: file < environment < flags', async () => {
    const path = file('c.json', '{"port": 1000, "host": "127.0.0.2", "logLevel": "warn"}');
    const { config, overrides } = await loadConfig({
      file: path,
      env: { PORT: '2000', LOG_LEVEL: 'debug' },
      flags: { port: '3000' },
    });
    expect(config.port).to.equal(3000);
    expect(config.logLevel).to.equal('debug');
    expect(config.host).to.equal('127.0.0.2');
    expect(overrides).to.include.members(['environment variable LOG_LEVEL', 'flag --port']);
  });

  it('relative paths in a config file are resolved against its directory', async () => {
    const { config } = await loadConfig({
      file: file(
        'c.json',
        JSON.stringify({
          routes: { file: 'nodes.yaml' },
          statuses: { store: { path: '../db/s.sqlite' } },
          plugins: ['./p.mjs', { module: '../q.mjs' }, 'some-package', { module: '/abs/r.mjs' }],
        }),
      ),
    });
    expect(config.routes.file).to.equal(join(dir, 'nodes.yaml'));
    expect(config.statuses.store).to.deep.equal({ path: resolve(dir, '../db/s.sqlite') });
    expect(config.plugins).to.deep.equal([
      join(dir, 'p.mjs'),
      { module: resolve(dir, '../q.mjs') },
      'some-package',
      { module: '/abs/r.mjs' },
    ]);
  });

  it('relative paths from the environment, flags and defaults are resolved against the working directory', async () => {
    const { config } = await loadConfig({
      file: file('c.json', '{"statuses": {"memory": {"maxEntries": 10}}}'),
      env: { ROLLUP_ROUTER_ROUTES_FILE: 'nodes.yaml' },
      flags: { plugins: ['./p.mjs'] },
    });
    expect(config.routes.file).to.equal(resolve('nodes.yaml'));
    expect(config.statuses.store).to.deep.equal({ path: resolve('data/statuses.sqlite') });
    expect(config.plugins).to.deep.equal([resolve('p.mjs')]);
  });

  it('an enum failure lists the allowed values', async () => {
    const err = await rejection(loadConfig({ flags: { logLevel: 'loud' } }));
    expect(err.message).to.include(
      '/logLevel must be one of: "fatal", "error", "warn", "info", "debug", "trace", "silent" (rule: enum)',
    );
  });

  it('a value of no allowed type lists the alternatives', async () => {
    const err = await rejection(loadConfig({ file: file('c.json', '{"cors": "yes"}') }));
    expect(err.message).to.include('/cors must be one of: "*", false, an array of strings');
  });

  it('a bad value names the key, the rule and what the key is for', async () => {
    const err = await rejection(
      loadConfig({ file: file('c.json', '{"readiness": {"upstreamFreshMs": 5}}') }),
    );
    expect(err.message).to.include('/readiness/upstreamFreshMs');
    expect(err.message).to.include('rule: minimum');
    expect(err.message).to.include('answered');
  });

  it('inside a oneOf, the branch of the value’s type says what is wrong', async () => {
    const err = await rejection(
      loadConfig({ file: file('c.json', '{"rateLimit": {"points": 5, "durationSeconds": 0}}') }),
    );
    expect(err.message).to.include('/rateLimit/durationSeconds');
    expect(err.message).to.include('rule: minimum');
  });

  it('a bad environment value names the variable', async () => {
    const err = await rejection(loadConfig({ env: { ROLLUP_ROUTER_RATE_LIMIT: 'lots' } }));
    expect(err.message).to.include('/rateLimit');
    expect(err.message).to.include('environment variable ROLLUP_ROUTER_RATE_LIMIT');
    expect(err.message).to.include('expected: POINTS/SECONDS');
  });

  it('logFlushMs: 100 by default; ROLLUP_ROUTER_LOG_FLUSH_MS sets it, 0 included; a bad value names the variable', async () => {
    expect((await loadConfig()).config.logFlushMs).to.equal(100);
    expect((await loadConfig({ env: { ROLLUP_ROUTER_LOG_FLUSH_MS: '0' } })).config.logFlushMs).to.equal(0);
    expect((await loadConfig({ env: { ROLLUP_ROUTER_LOG_FLUSH_MS: '250' } })).config.logFlushMs).to.equal(
      250,
    );
    const err = await rejection(loadConfig({ env: { ROLLUP_ROUTER_LOG_FLUSH_MS: 'soon' } }));
    expect(err.message).to.include('/logFlushMs');
    expect(err.message).to.include('environment variable ROLLUP_ROUTER_LOG_FLUSH_MS');
  });

  it('workers: 1 by default; ROLLUP_ROUTER_WORKERS and --workers take a number or auto; 0 or a word names the source', async () => {
    expect((await loadConfig()).config.workers).to.equal(1);
    expect((await loadConfig({ env: { ROLLUP_ROUTER_WORKERS: '4' } })).config.workers).to.equal(4);
    expect((await loadConfig({ env: { ROLLUP_ROUTER_WORKERS: 'auto' } })).config.workers).to.equal('auto');
    const flagged = await loadConfig({ env: { ROLLUP_ROUTER_WORKERS: 'auto' }, flags: { workers: '2' } });
    expect(flagged.config.workers).to.equal(2);
    const zero = await rejection(loadConfig({ env: { ROLLUP_ROUTER_WORKERS: '0' } }));
    expect(zero.message).to.include('/workers').and.include('ROLLUP_ROUTER_WORKERS');
    const word = await rejection(loadConfig({ flags: { workers: 'many' } }));
    expect(word.message).to.include('/workers').and.include('flag --workers');
  });

  it('ROLLUP_ROUTER_STORE_PATH sets the store’s path and keeps its other keys; off removes the store', async () => {
    const path = file('c.json', JSON.stringify({ statuses: { store: { path: 'a.sqlite', cacheMiB: 64 } } }));
    const moved = await loadConfig({ file: path, env: { ROLLUP_ROUTER_STORE_PATH: '/data/b.sqlite' } });
    expect(moved.config.statuses.store).to.deep.equal({ path: '/data/b.sqlite', cacheMiB: 64 });
    const off = await loadConfig({ file: path, env: { ROLLUP_ROUTER_STORE_PATH: 'off' } });
    expect(off.config.statuses.store).to.equal(false);
    const fromFalse = file('f.json', JSON.stringify({ statuses: { store: false } }));
    const on = await loadConfig({ file: fromFalse, env: { ROLLUP_ROUTER_STORE_PATH: '/data/c.sqlite' } });
    expect(on.config.statuses.store).to.deep.equal({ path: '/data/c.sqlite' });
  });

  it('redis: absent by default; a url gets the stated defaults; ROLLUP_ROUTER_REDIS_URL sets it, off removes it', async () => {
    expect((await loadConfig()).config.redis).to.equal(undefined);
    const withRedis = file('redis.json', JSON.stringify({ redis: { url: 'redis://cache:6379' } }));
    expect((await loadConfig({ file: withRedis })).config.redis).to.deep.equal({
      url: 'redis://cache:6379',
      keyPrefix: 'rollup-router:',
      commandTimeoutMs: 250,
      connectTimeoutMs: 2000,
      statusTtlSeconds: 86400,
      affinityTtlSeconds: 120,
    });
    const fromEnv = await loadConfig({ env: { ROLLUP_ROUTER_REDIS_URL: 'redis://:pw@other:6380/2' } });
    expect(fromEnv.config.redis?.url).to.equal('redis://:pw@other:6380/2');
    const off = await loadConfig({ file: withRedis, env: { ROLLUP_ROUTER_REDIS_URL: 'off' } });
    expect(off.config.redis).to.equal(undefined);
  });

  it('a redis section without url, or a url that is not redis://, names the key and the variable', async () => {
    const missing = await rejection(loadConfig({ file: file('r.json', JSON.stringify({ redis: {} })) }));
    expect(missing.message).to.include('/redis/url');
    const wrong = await rejection(loadConfig({ env: { ROLLUP_ROUTER_REDIS_URL: 'http://cache:6379' } }));
    expect(wrong.message).to.include('/redis/url').and.include('ROLLUP_ROUTER_REDIS_URL');
  });

  it('a top level that is not an object is rejected', async () => {
    const err = await rejection(loadConfig({ file: file('c.json', '[1, 2]') }));
    expect(err.message).to.include('top level');
  });

  it('an unreadable file is a ConfigError naming it', async () => {
    const err = await rejection(loadConfig({ file: join(dir, 'missing.json') }));
    expect(err.message).to.include('missing.json');
  });
});
