// Optional features cost nothing when unused: the packages load, and work, in a project
// whose node_modules lacks their optional peers; a setting that needs a missing one is
// refused with an error that names the package and the setting. The project is a temp
// directory whose node_modules links only what the packages' own dependencies pull in,
// minus the refused packages; node runs with --preserve-symlinks, so nothing resolves
// through the workspace's node_modules.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipUnlessValidatorA } from './support/validator.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';

interface Manifest {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

/** The directory Node would load `name` from, looking up from `from`; undefined when none. */
function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * A project whose node_modules holds `entries` and everything they depend on (peers that
 * are installed included), except `refused`: each top-level package is a link into the
 * workspace's node_modules; nested ones come with the package that holds them.
 */
function projectWithout(entries: readonly string[], refused: ReadonlySet<string>): string {
  const project = mkdtempSync(path.join(tmpdir(), 'rollup-router-optional-'));
  const seen = new Set<string>();
  const visit = (name: string, from: string): void => {
    if (refused.has(name)) return;
    const dir = packageDir(name, from);
    if (dir === undefined || seen.has(dir)) return;
    seen.add(dir);
    if (dir === path.join(root, 'node_modules', name)) {
      const link = path.join(project, 'node_modules', name);
      mkdirSync(path.dirname(link), { recursive: true });
      symlinkSync(dir, link, 'dir');
    }
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
    const names = {
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
      ...manifest.peerDependencies,
    };
    for (const dependency of Object.keys(names)) visit(dependency, dir);
  };
  for (const entry of entries) visit(entry, root);
  return project;
}

/** Runs `script` (ESM) in `project` with symlinks preserved; returns the JSON line it prints. */
function runIn(project: string, script: string): Record<string, unknown> {
  const file = path.join(project, 'probe.mjs');
  writeFileSync(file, script);
  const ran = spawnSync(process.execPath, ['--preserve-symlinks', file], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(ran.status, ran.stderr).to.equal(0);
  return JSON.parse(ran.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/**
 * Type-checks `source` as app.ts of `project` with skipLibCheck off, so every declaration
 * file it reaches is checked: a type of a package missing from the project is an error.
 */
function expectTypeChecks(project: string, source: string): void {
  writeFileSync(path.join(project, 'app.ts'), source);
  const options = {
    strict: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    noEmit: true,
    skipLibCheck: false,
    preserveSymlinks: true,
    types: ['node'],
  };
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: options, files: ['app.ts'] }),
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const ran = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', timeout: 120_000 });
  expect(`${ran.stdout}${ran.stderr}`.trim()).to.equal('');
  expect(ran.status).to.equal(0);
}

/** Script lines: `absent` maps each refused package to the code resolving it fails with. */
const probeAbsent = (refused: ReadonlySet<string>): string => `
const out = { absent: {} };
for (const name of ${JSON.stringify([...refused])}) {
  try { await import(name); out.absent[name] = 'found'; } catch (e) { out.absent[name] = e.code; }
}
const refusal = async (f) => { try { await f(); return 'no error'; } catch (e) { return e.message; } };
`;

/** What core loads only when a feature asks for it: its transports, Express for its adapter, OpenTelemetry for traces. */
const CORE_TRANSPORTS: ReadonlySet<string> = new Set([
  'ws',
  'undici',
  'proxy-addr',
  'rate-limiter-flexible',
  'express',
  '@types/express',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/semantic-conventions',
]);

describe('packaging: optional peers missing', function () {
  this.timeout(120_000);
  const projects: string[] = [];
  after(() => {
    for (const p of projects) rmSync(p, { recursive: true, force: true });
  });

  it('@rollup-router/signature-statuses without better-sqlite3 and ioredis: loads, answers, and names what a store or Redis needs', async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    const refused = new Set(['better-sqlite3', 'ioredis']);
    const project = projectWithout(['@rollup-router/signature-statuses'], refused);
    projects.push(project);
    const out = runIn(
      project,
      `${probeAbsent(refused)}
const { createRpc, createLogger } = await import('@rollup-router/core');
const { signatureStatusesPlugin } = await import('@rollup-router/signature-statuses');
const rpc = createRpc({
  logger: createLogger({ level: 'silent' }),
  plugins: [signatureStatusesPlugin({ upstreams: [{ url: ${JSON.stringify(VALIDATOR)} }] })],
});
await rpc.start();
const call = { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [['1'.repeat(64)]] };
out.answer = JSON.parse(await rpc.dispatch(JSON.stringify(call)));
await rpc.stop();
out.store = await refusal(() => signatureStatusesPlugin({ store: { path: 'statuses.sqlite' } }));
out.redis = await refusal(() => signatureStatusesPlugin({ redis: { url: 'redis://127.0.0.1:6379' } }));
console.log(JSON.stringify(out));
`,
    );
    expect(out.absent).to.deep.equal({
      'better-sqlite3': 'ERR_MODULE_NOT_FOUND',
      ioredis: 'ERR_MODULE_NOT_FOUND',
    });
    const answer = out.answer as { result?: { value: unknown[] }; error?: unknown };
    expect(answer.error, JSON.stringify(answer)).to.equal(undefined);
    expect(answer.result?.value).to.deep.equal([null]);
    expect(out.store).to.equal(
      'signature-statuses option /store is set but better-sqlite3 is not installed: npm install better-sqlite3',
    );
    expect(out.redis).to.equal(
      'signature-statuses option /redis/url is set but ioredis is not installed: npm install ioredis',
    );
  });

  it('@rollup-router/core without its transports and OpenTelemetry: the dispatcher works over node:http, and each transport and tracing names its package', () => {
    const refused = CORE_TRANSPORTS;
    const project = projectWithout(['@rollup-router/core'], refused);
    projects.push(project);
    const out = runIn(
      project,
      `${probeAbsent(refused)}
import { createServer } from 'node:http';
const core = await import('@rollup-router/core');
const add = core.defineMethod({ name: 'add', handler: ({ a, b }) => a + b });
const rpc = core.createRpc({ logger: core.createLogger({ level: 'silent' }), methods: [add] });
const server = createServer(core.createNodeListener(rpc));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const reply = await fetch('http://127.0.0.1:' + server.address().port + '/', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'add', params: { a: 2, b: 3 } }),
});
out.answer = await reply.json();
out.ws = await refusal(() => core.attachWebSocket(server, rpc));
server.close();
await rpc.stop();
out.rateLimit = await refusal(() => core.createRpc({ rateLimit: { points: 5, durationSeconds: 1 } }));
out.trustProxy = await refusal(() => core.createRpc({ trustProxy: ['loopback'] }));
out.client = await refusal(() => new core.JsonRpcClient());
out.tracing = await refusal(() => core.createRpc({ tracing: { enabled: true } }));
console.log(JSON.stringify(out));
`,
    );
    expect(out.absent).to.deep.equal(
      Object.fromEntries([...refused].map((n) => [n, 'ERR_MODULE_NOT_FOUND'])),
    );
    expect(out.answer).to.deep.equal({ jsonrpc: '2.0', id: 1, result: 5 });
    expect(out.ws).to.equal('attachWebSocket is called but ws is not installed: npm install ws');
    expect(out.rateLimit).to.equal(
      'core option /rateLimit is set but rate-limiter-flexible is not installed: npm install rate-limiter-flexible',
    );
    expect(out.trustProxy).to.equal(
      'core option /trustProxy is set but proxy-addr is not installed: npm install proxy-addr',
    );
    expect(out.client).to.equal('JsonRpcClient is used but undici is not installed: npm install undici');
    expect(out.tracing).to.equal(
      'core option /tracing/enabled is true but @opentelemetry/api is not installed: npm install @opentelemetry/api',
    );
  });

  it('@rollup-router/core without its transports and OpenTelemetry type-checks with skipLibCheck off: its declarations name none of them', () => {
    const refused = CORE_TRANSPORTS;
    const project = projectWithout(['@rollup-router/core', '@types/node'], refused);
    projects.push(project);
    expectTypeChecks(
      project,
      `import { createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
const ping = defineMethod<undefined, string>({ name: 'ping', handler: () => 'pong' });
export const listener = createNodeListener(createRpc({ methods: [ping] }));
`,
    );
  });

  it('@rollup-router/signature-statuses without better-sqlite3 and ioredis type-checks with skipLibCheck off: its declarations name neither', () => {
    const refused = new Set(['better-sqlite3', '@types/better-sqlite3', 'ioredis']);
    const project = projectWithout(['@rollup-router/signature-statuses', '@types/node'], refused);
    projects.push(project);
    expectTypeChecks(
      project,
      `import http from 'node:http';
import { createNodeListener, createRpc } from '@rollup-router/core';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';

const statuses = signatureStatusesPlugin({
  store: false,
  upstreams: [{ url: 'https://api.mainnet-beta.solana.com', name: 'mainnet' }],
  onLookup: (layer, count) => console.log(\`\${count} signature(s) settled by \${layer}\`),
});
const rpc = createRpc({ plugins: [statuses] });
export const server = http.createServer(createNodeListener(rpc));
export const tracked: boolean = statuses.track('1'.repeat(64), 'mainnet');
`,
    );
  });
});
