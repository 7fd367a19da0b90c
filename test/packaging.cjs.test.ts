// CommonJS consumers: a .cts file that require()s every package type-checks with
// `module: NodeNext` and, compiled to .cjs, runs (Node >= 20.19 loads ESM from require()).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const consumer = path.join(root, 'test/fixtures/cjs-consumer.cts');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('packaging: CommonJS consumers', function () {
  this.timeout(120_000);
  let project: string;

  before(() => {
    // A consumer project outside the repository; its node_modules is the workspace's.
    project = mkdtempSync(path.join(tmpdir(), 'rollup-router-cjs-'));
    symlinkSync(path.join(root, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  });

  after(() => rmSync(project, { recursive: true, force: true }));

  it('a .cts consumer type-checks with module NodeNext, and its .cjs requires and calls every package', () => {
    const compiled = spawnSync(
      process.execPath,
      [
        tsc,
        ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'],
        ...['--strict', '--verbatimModuleSyntax', '--types', 'node', '--outDir', project, consumer],
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(compiled.stdout + compiled.stderr, 'tsc output').to.equal('');
    expect(compiled.status).to.equal(0);
    const script = path.join(project, 'cjs-consumer.cjs');
    expect(existsSync(script)).to.equal(true);

    const ran = spawnSync(process.execPath, [script], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(ran.status, ran.stderr).to.equal(0);
    const printed = JSON.parse(ran.stdout.trim()) as { answers: unknown; stored: number; port: number };
    expect(printed.answers).to.deep.equal([
      { jsonrpc: '2.0', id: 1, result: 5 },
      { jsonrpc: '2.0', id: 2, result: [] },
    ]);
    expect(printed.stored).to.equal(0);
    expect(printed.port).to.be.a('number');
  });

  /** The exports of `specifier`, required in CommonJS by `node -e` in the consumer project. */
  const requiredKeys = (specifier: string): string[] => {
    const ran = spawnSync(
      process.execPath,
      ['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)}))))`],
      { cwd: project, encoding: 'utf8', timeout: 60_000 },
    );
    expect(ran.status, ran.stderr).to.equal(0);
    return JSON.parse(ran.stdout.trim()) as string[];
  };

  /** The named exports of `specifier`, imported as ESM in the consumer project. */
  const importedKeys = (specifier: string): string[] => {
    const ran = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort()))`,
      ],
      { cwd: project, encoding: 'utf8', timeout: 60_000 },
    );
    expect(ran.status, ran.stderr).to.equal(0);
    return JSON.parse(ran.stdout.trim()) as string[];
  };

  for (const name of ['core', 'solana', 'routes', 'signature-statuses', 'delegation-router', 'server']) {
    const manifest = JSON.parse(readFileSync(path.join(root, 'packages', name, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    for (const subpath of Object.keys(manifest.exports).filter((s) => !s.endsWith('.json'))) {
      const specifier = path.posix.join(`@rollup-router/${name}`, subpath);
      it(`require('${specifier}') in CommonJS (node -e) gives the ESM exports`, () => {
        const required = requiredKeys(specifier);
        expect(required).to.have.length.above(0);
        expect(required.sort()).to.deep.equal(importedKeys(specifier));
      });
    }
  }

  it("core's main entry is its public surface, the plugin kit included; @rollup-router/core/internal holds only the server's share", () => {
    const pluginKit = ['redactUrl', 'inSchemaOrder', 'noParamsSchema', 'OutageLog', 'loadOptionalPackage'];
    const main = requiredKeys('@rollup-router/core');
    expect(main).to.include.members([
      'createRpc',
      'definePlugin',
      'attachWebSocket',
      'RpcError',
      ...pluginKit,
    ]);
    expect(main).to.not.include('expressRpc');
    expect(requiredKeys('@rollup-router/core/express')).to.deep.equal(['expressRpc']);
    expect(requiredKeys('@rollup-router/core/internal').sort()).to.deep.equal([
      'NOT_FOUND_BODY',
      'SecretMatch',
      'bearerToken',
      'mountPrefix',
    ]);
    expect(requiredKeys('@rollup-router/solana')).to.include.members(['deriveWsUrl', 'textKey']);
  });
});
