import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { memoryLog, post, type LogLine } from '@rollup-router/test-support/http';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig, type ConfigSources } from '../src/config/load-config.js';
import { startServer, type RunningServer } from '../src/server.js';

const CLI = resolve(import.meta.dirname, '../dist/cli.js');

describe('server: callLog from the config file and the environment', () => {
  let dir: string;
  let server: RunningServer | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'server-call-log-'))));
  afterEach(async () => {
    await server?.shutdown(0);
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const configFile = (config: unknown): string => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(config));
    return file;
  };

  /** The server as loadConfig makes it from `sources`, logging into memory at the config's level. */
  async function serve(
    sources: ConfigSources,
  ): Promise<{ lines: LogLine[]; call: (id: string, method: string) => Promise<unknown> }> {
    const { config } = await loadConfig(sources);
    const log = memoryLog(config.logLevel);
    server = await startServer(config, { logger: log.log });
    const url = server.url;
    const call = (reqId: string, method: string) =>
      post(url, `{"jsonrpc":"2.0","id":1,"method":"${method}"}`, {
        'content-type': 'application/json',
        'x-request-id': reqId,
      });
    return { lines: log.lines, call };
  }

  const env = { PORT: '0', ROLLUP_ROUTER_STORE_PATH: 'off' };
  const callLines = (lines: readonly LogLine[]) => lines.filter((l) => l.msg === 'call');

  it('ROLLUP_ROUTER_CALL_LOG_SAMPLE_RATE and _LEVEL reach the core: 1 success in 2 at warn, every failure', async () => {
    const { lines, call } = await serve({
      env: { ...env, ROLLUP_ROUTER_CALL_LOG_SAMPLE_RATE: '0.5', ROLLUP_ROUTER_CALL_LOG_LEVEL: 'warn' },
    });
    for (let i = 1; i <= 4; i++) await call(`ok-${i}`, 'getRoutes');
    await call('fail-1', 'noSuchMethod');
    expect(callLines(lines).map((l) => [l.reqId, l.level, l.sampleRate])).to.deep.equal([
      ['ok-1', 40, 0.5],
      ['ok-3', 40, 0.5],
      ['fail-1', 40, undefined],
    ]);
  });

  it('callLog in the config file reaches the core; the environment overrides one of its keys', async () => {
    const file = configFile({ logLevel: 'info', callLog: { level: 'debug', sampleRate: 0.25 } });
    const quiet = await serve({ file, env });
    await quiet.call('ok-1', 'getRoutes');
    await quiet.call('fail-1', 'noSuchMethod');
    expect(callLines(quiet.lines)).to.deep.equal([]);
    await server?.shutdown(0);

    const loud = await serve({ file, env: { ...env, ROLLUP_ROUTER_CALL_LOG_LEVEL: 'info' } });
    for (let i = 1; i <= 5; i++) await loud.call(`ok-${i}`, 'getRoutes');
    expect(callLines(loud.lines).map((l) => [l.reqId, l.sampleRate])).to.deep.equal([
      ['ok-1', 0.25],
      ['ok-5', 0.25],
    ]);
  });

  it('a bad sample rate is refused, naming /callLog/sampleRate, the variable and the form it expects', async () => {
    for (const value of ['abc', '0', '1.5']) {
      let error: unknown;
      try {
        await loadConfig({ env: { ROLLUP_ROUTER_CALL_LOG_SAMPLE_RATE: value } });
      } catch (err) {
        error = err;
      }
      expect(error, value).to.be.instanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).to.include('/callLog/sampleRate');
      expect(message).to.include('set by environment variable ROLLUP_ROUTER_CALL_LOG_SAMPLE_RATE');
      expect(message).to.include('expected: a number above 0 and at most 1');
    }
  });

  it('the CLI exits 2 on a bad sample rate in the file or the environment, with the message on stderr', () => {
    const run = (args: string[], extra: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...extra }, encoding: 'utf8' });
    const fromEnv = run(['check-config', configFile({})], { ROLLUP_ROUTER_CALL_LOG_SAMPLE_RATE: 'often' });
    expect(fromEnv.status).to.equal(2);
    expect(fromEnv.stderr).to.include('/callLog/sampleRate must be number (rule: type)');
    const fromFile = run(['check-config', configFile({ callLog: { sampleRate: 0 } })], {});
    expect(fromFile.status).to.equal(2);
    expect(fromFile.stderr).to.include('/callLog/sampleRate must be > 0 (rule: exclusiveMinimum)');
  });
});
