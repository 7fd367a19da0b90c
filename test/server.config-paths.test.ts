// Relative paths in a config file mean the file's directory, whatever the working
// directory; a routes file that is wrong at start is told like a bad config; and a bad
// value says what would do.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { pubkey, rpc, runCli, startCli, tempDir, writeJson } from './server.harness.js';

const route = (countryCode: string): Record<string, unknown> => ({
  identity: pubkey(),
  fqdn: 'https://er.example.com',
  baseFee: 0,
  blockTimeMs: 50,
  countryCode,
});

describe('rollup-router: paths in a config file and errors at start', function () {
  this.timeout(60_000);
  let configDir: ReturnType<typeof tempDir>;
  let cwd: ReturnType<typeof tempDir>;
  beforeEach(() => {
    configDir = tempDir();
    cwd = tempDir();
  });
  afterEach(() => {
    configDir.remove();
    cwd.remove();
  });

  it('serve from another working directory: the routes file and the store are the ones beside the config file', async () => {
    writeJson(join(configDir.dir, 'routes.json'), [route('DEU')]);
    const config = writeJson(join(configDir.dir, 'config.json'), {
      routes: { file: './routes.json', watch: false },
      statuses: { store: { path: 'db/statuses.sqlite' } },
    });
    const server = await startCli(['--config', config, '--port', '0'], {}, cwd.dir);
    try {
      const routes = await rpc(`${server.base}/`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
      expect((routes.json.result as { countryCode: string }[]).map((r) => r.countryCode)).to.deep.equal([
        'DEU',
      ]);
      expect(existsSync(join(configDir.dir, 'db/statuses.sqlite'))).to.equal(true);
      expect(existsSync(join(cwd.dir, 'db'))).to.equal(false);
    } finally {
      await server.kill();
    }
  });

  it('check-config from another working directory finds the routes file beside the config', async () => {
    writeJson(join(configDir.dir, 'routes.json'), [route('USA')]);
    const config = writeJson(join(configDir.dir, 'config.json'), { routes: { file: 'routes.json' } });
    const r = await runCli(['check-config', config], {}, cwd.dir);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('1 route(s)');
  });

  it('serve with a bad routes file: the reason on stderr, exit 2, never listening', async () => {
    writeJson(join(configDir.dir, 'routes.json'), [route('XXX')]);
    const config = writeJson(join(configDir.dir, 'config.json'), {
      routes: { file: './routes.json' },
      statuses: { store: false },
    });
    const r = await runCli(['--config', config, '--port', '0'], {}, cwd.dir);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('rollup-router: invalid routes:');
    expect(r.stderr).to.include(join(configDir.dir, 'routes.json'));
    expect(r.stderr).to.include('field countryCode');
    expect(r.stdout).not.to.include('listening');
    // Told once: not again as a log line on stdout.
    expect(r.stdout).not.to.include('field countryCode');
  });

  it('serve with a missing routes file: stderr, exit 2', async () => {
    const config = writeJson(join(configDir.dir, 'config.json'), {
      routes: { file: './nope.json' },
      statuses: { store: false },
    });
    const r = await runCli(['--config', config, '--port', '0'], {}, cwd.dir);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include(join(configDir.dir, 'nope.json'));
  });

  const expected: [string, string[], NodeJS.ProcessEnv, object | undefined, string][] = [
    [
      '--log-level loud',
      ['--log-level', 'loud'],
      {},
      undefined,
      '/logLevel must be one of: "fatal", "error", "warn", "info", "debug", "trace", "silent"',
    ],
    ["cors: 'yes'", [], {}, { cors: 'yes' }, '/cors must be one of: "*", false, an array of strings'],
    ['ROLLUP_ROUTER_RATE_LIMIT=abc', [], { ROLLUP_ROUTER_RATE_LIMIT: 'abc' }, undefined, 'POINTS/SECONDS'],
  ];
  for (const [what, args, env, file, says] of expected) {
    it(`${what} is refused saying what is expected`, async () => {
      const config = file && writeJson(join(configDir.dir, 'c.json'), file);
      const r = await runCli([...(config ? ['--config', config] : []), '--port', '0', ...args], env, cwd.dir);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.include(says);
    });
  }
});
