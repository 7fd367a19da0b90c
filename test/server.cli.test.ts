import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CLI, pubkey, REPO, runCli, tempDir, writeJson } from './server.harness.js';

const packageVersion = (
  JSON.parse(readFileSync(join(REPO, 'packages/server/package.json'), 'utf8')) as { version: string }
).version;

describe('rollup-router CLI: arguments and config checking', function () {
  this.timeout(30_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  it('--help lists the commands, options and environment variables, and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).to.equal(0);
    for (const word of [
      'check-config',
      'import-statuses',
      '--config',
      '--port',
      '--log-level',
      'ROLLUP_ROUTER_API_KEYS',
      'PORT',
    ]) {
      expect(r.stdout).to.include(word);
    }
  });

  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).to.equal(0);
    expect(r.stdout.trim()).to.equal(packageVersion);
  });

  it('an unknown option or command is a usage error: exit 2 with the usage', async () => {
    const option = await runCli(['--no-such-option']);
    expect(option.code).to.equal(2);
    expect(option.stderr).to.include('Usage:');
    const command = await runCli(['frobnicate']);
    expect(command.code).to.equal(2);
    expect(command.stderr).to.include('unknown command: frobnicate');
  });

  it('check-config accepts a valid JSON file and prints the effective config with defaults, keys redacted', async () => {
    const routes = writeJson(join(tmp.dir, 'routes.json'), [
      { identity: pubkey(), fqdn: 'https://er.example.com', baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
    ]);
    const file = writeJson(join(tmp.dir, 'config.json'), {
      port: 9000,
      routes: { file: routes },
      apiKeys: ['a-secret-key-1'],
    });
    const r = await runCli(['check-config', file]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('valid');
    expect(r.stdout).to.include('1 route(s)');
    expect(r.stdout).not.to.include('a-secret-key-1');
    const effective = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as Record<string, unknown>;
    expect(effective.port).to.equal(9000);
    expect(effective.host).to.equal('127.0.0.1');
    expect((effective.limits as Record<string, unknown>).maxBatchLength).to.be.a('number');
  });

  it('check-config shows the chain URLs redacted: no user info, no key in the path', async () => {
    const file = writeJson(join(tmp.dir, 'chain.json'), {
      routes: {
        chain: {
          url: 'https://reader:pw-in-url@rpc.example.invalid/path-key',
          wsUrl: 'wss://reader:pw-in-ws-url@rpc.example.invalid/path-key',
        },
      },
    });
    const r = await runCli(['check-config', file]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).not.to.match(/pw-in|path-key/);
    const effective = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
      routes: { chain: { url: string; wsUrl: string } };
    };
    expect(effective.routes.chain).to.include({
      url: 'https://rpc.example.invalid/…',
      wsUrl: 'wss://rpc.example.invalid/…',
    });
  });

  it("check-config shows providers' URLs redacted and their headers' values hidden, in routes.chain and delegation.baseChain", async () => {
    const provider = (name: string) => ({
      name,
      url: `https://reader:pw-in-url@${name}.example.invalid/path-key`,
      wsUrl: `wss://reader:pw-in-ws-url@${name}.example.invalid/path-key`,
      headers: { 'x-api-key': 'header-key-value' },
    });
    const file = writeJson(join(tmp.dir, 'providers.json'), {
      routes: { chain: { providers: [provider('alpha')] } },
      delegation: { baseChain: { providers: [provider('beta')] } },
    });
    const r = await runCli(['check-config', file]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).not.to.match(/pw-in|path-key|header-key-value/);
    expect(r.stdout).to.include('alpha').and.to.include('beta');
  });

  it('check-config reads YAML', async () => {
    const file = join(tmp.dir, 'config.yaml');
    writeFileSync(file, 'port: 9001\nstatuses:\n  upstreams:\n    - url: http://127.0.0.1:17799\n');
    const r = await runCli(['check-config', file]);
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))).port).to.equal(9001);
  });

  const bad: [string, unknown, string, string][] = [
    ['a port out of range', { port: 70000 }, '/port', 'maximum'],
    ['an unknown key', { prot: 8080 }, '/prot', 'additionalProperties'],
    [
      'a non-URL upstream',
      { statuses: { upstreams: [{ url: 'not a url' }] } },
      '/statuses/upstreams/0/url',
      'pattern',
    ],
    [
      'a rate limit without its window',
      { rateLimit: { points: 10 } },
      '/rateLimit/durationSeconds',
      'required',
    ],
    ['a short API key', { apiKeys: ['short'] }, '/apiKeys/0', 'minLength'],
    ['a wrong mount path', { endpoints: { mountPath: 'rpc' } }, '/endpoints/mountPath', 'pattern'],
  ];
  for (const [what, config, key, rule] of bad) {
    it(`check-config rejects ${what}: exit 2 naming ${key} and the rule ${rule}`, async () => {
      const r = await runCli(['check-config', writeJson(join(tmp.dir, 'bad.json'), config)]);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.include(key);
      expect(r.stderr).to.include(`rule: ${rule}`);
    });
  }

  it('an unknown key is named with the known key it most likely meant, at any depth', async () => {
    const typos: [unknown, string][] = [
      [{ prot: 8080 }, '/prot is not a known member (did you mean "port"?)'],
      [{ routes: { chian: {} } }, '/routes/chian is not a known member (did you mean "chain"?)'],
      // The cluster's keys (chain-cluster.schema.json) and each section's own, in both sections.
      [
        { routes: { chain: { url: 'http://127.0.0.1:1', hedgeAfterMS: 100 } } },
        '/routes/chain/hedgeAfterMS is not a known member (did you mean "hedgeAfterMs"?)',
      ],
      [
        { routes: { chain: { url: 'http://127.0.0.1:1', resyncMS: 1000 } } },
        '/routes/chain/resyncMS is not a known member (did you mean "resyncMs"?)',
      ],
      [
        { delegation: { baseChain: { url: 'http://127.0.0.1:1', maxSlotLg: 10 } } },
        '/delegation/baseChain/maxSlotLg is not a known member (did you mean "maxSlotLag"?)',
      ],
      [
        { delegation: { baseChain: { url: 'http://127.0.0.1:1', comitment: 'confirmed' } } },
        '/delegation/baseChain/comitment is not a known member (did you mean "commitment"?)',
      ],
      [
        { delegation: { baseChain: { url: 'http://127.0.0.1:1', zzzzzz: 1 } } },
        '/delegation/baseChain/zzzzzz is not a known member (rule: additionalProperties)',
      ],
    ];
    for (const [config, message] of typos) {
      const r = await runCli(['check-config', writeJson(join(tmp.dir, 'typo.json'), config)]);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.include(message);
    }
    const far = await runCli(['check-config', writeJson(join(tmp.dir, 'far.json'), { zzzzzz: 1 })]);
    expect(far.stderr).to.include('/zzzzzz is not a known member (rule: additionalProperties)');
  });

  it("a host that is not this machine's is a bad setting: exit 2 naming the host and /host, no log line", async () => {
    for (const [host, why] of [
      ['999.1.1.1', 'the name does not resolve (ENOTFOUND)'],
      ['192.0.2.1', 'it is not an address of this machine (EADDRNOTAVAIL)'],
    ] as const) {
      const r = await runCli(['--host', host, '--port', '0'], {}, tmp.dir);
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stderr).to.include(`cannot listen on host ${host} for the HTTP port: ${why}`);
      expect(r.stderr).to.include('/host (HOST)');
      expect(r.stdout).not.to.include('could not start');
    }
  });

  it('check-config rejects a routes file with a bad entry, naming the entry and field', async () => {
    const routes = writeJson(join(tmp.dir, 'routes.json'), [
      { identity: pubkey(), fqdn: 'https://er.example.com', baseFee: 0, blockTimeMs: 50, countryCode: 'XXX' },
    ]);
    const r = await runCli([
      'check-config',
      writeJson(join(tmp.dir, 'c.json'), { routes: { file: routes } }),
    ]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('countryCode');
  });

  it('a file that is not JSON is rejected with exit 2', async () => {
    const file = join(tmp.dir, 'broken.json');
    writeFileSync(file, '{"port": 80,');
    const r = await runCli(['check-config', file]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('not valid JSON');
  });

  it('serving with a bad config exits 2 before listening, naming the key', async () => {
    const r = await runCli([
      '--config',
      writeJson(join(tmp.dir, 'bad.json'), { limits: { maxBodyBytes: 1 } }),
    ]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('/limits/maxBodyBytes');
    expect(r.stderr).to.include('rule: minimum');
  });

  it('a bad environment override is rejected naming the variable', async () => {
    const r = await runCli(['check-config', writeJson(join(tmp.dir, 'ok.json'), {})], { PORT: 'eighty' });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('/port');
    expect(r.stderr).to.include('environment variable PORT');
  });

  it('environment variables override the file', async () => {
    const file = writeJson(join(tmp.dir, 'c.json'), { port: 1111, host: '127.0.0.1' });
    const r = await runCli(['check-config', file], {
      PORT: '2222',
      ROLLUP_ROUTER_UPSTREAMS: 'http://127.0.0.1:1/,http://127.0.0.1:2/',
      ROLLUP_ROUTER_RATE_LIMIT: '5/2',
      ROLLUP_ROUTER_STORE_PATH: 'off',
    });
    expect(r.code, r.stderr).to.equal(0);
    const effective = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
      port: number;
      rateLimit: unknown;
      statuses: { upstreams: { url: string }[]; store: unknown };
    };
    expect(effective.port).to.equal(2222);
    expect(effective.rateLimit).to.deep.equal({ points: 5, durationSeconds: 2 });
    expect(effective.statuses.upstreams.map((u) => u.url)).to.deep.equal([
      'http://127.0.0.1:1',
      'http://127.0.0.1:2',
    ]);
    expect(effective.statuses.store).to.equal(false);
  });

  it('on a terminal, the log is pretty-printed instead of JSON lines', async function () {
    if (spawnSync('script', ['--version']).status !== 0) this.skip(); // util-linux `script` gives the server a terminal
    // `timeout` sends SIGTERM after a while: nothing else can reach the process behind the pseudo-terminal.
    const command = `exec timeout --preserve-status -s TERM 6 ${process.execPath} ${CLI} --port 0`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: tmp.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((done) => child.once('close', done));
    expect(code, out).to.equal(0);
    const text = out.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), ''); // colour codes
    expect(text).to.match(/INFO.*listening on http:\/\/127\.0\.0\.1:\d+\//);
    expect(text).to.include('stopped');
    expect(text.split('\n').some((l) => l.trim().startsWith('{"level"'))).to.equal(false);
  });
});
