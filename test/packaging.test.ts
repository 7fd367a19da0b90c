// What each package's tarball holds and what installing it pulls in, read from
// `npm pack --dry-run --json` and package-lock.json (the build must have run: `npm test` does).
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = fileURLToPath(new URL('..', import.meta.url));
const packageDirs = ['core', 'solana', 'routes', 'signature-statuses', 'delegation-router', 'server'].map(
  (name) => `packages/${name}`,
);

interface PackedFile {
  readonly path: string;
}
interface Packed {
  readonly name: string;
  readonly files: readonly PackedFile[];
}
interface Manifest {
  readonly name: string;
  readonly description?: string;
  readonly license?: string;
  readonly engines?: { readonly node?: string };
  readonly repository?: { readonly type: string; readonly url: string; readonly directory?: string };
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly hasInstallScript?: boolean;
  readonly link?: boolean;
  readonly resolved?: string;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as T;

function packDryRun(): Map<string, Set<string>> {
  const args = ['pack', '--dry-run', '--json', '--ignore-scripts', ...packageDirs.flatMap((d) => ['-w', d])];
  const out = execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const packed = JSON.parse(out) as Packed[];
  return new Map(packed.map((p) => [p.name, new Set(p.files.map((f) => f.path))]));
}

/** The package a module specifier names, or undefined for relative paths and Node built-ins. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) {
    return undefined;
  }
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => path.join(dir, f));
}

/** Packages the built JavaScript loads at run time (static imports, re-exports, dynamic imports). */
function runtimeImports(dir: string): Set<string> {
  const found = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;
  for (const file of filesUnder(`${dir}/dist`, '.js')) {
    for (const match of readFileSync(path.join(root, file), 'utf8').matchAll(pattern)) {
      const name = packageOf(match[1]!);
      if (name !== undefined) found.add(name);
    }
  }
  return found;
}

/** Every quoted string in dist (.js and .d.ts): a dependency must be named somewhere. */
function quotedNames(dir: string): Set<string> {
  const found = new Set<string>();
  for (const file of [...filesUnder(`${dir}/dist`, '.js'), ...filesUnder(`${dir}/dist`, '.d.ts')]) {
    for (const match of readFileSync(path.join(root, file), 'utf8').matchAll(/['"]([^'"\s]+)['"]/g)) {
      const name = packageOf(match[1]!);
      if (name !== undefined) found.add(name);
    }
  }
  return found;
}

describe('packaging: the published tarballs and what installing them pulls in', function () {
  this.timeout(60_000);
  let tarballs: Map<string, Set<string>>;
  const rootLicense = (): string => readFileSync(path.join(root, 'LICENSE'), 'utf8');

  before(() => {
    tarballs = packDryRun();
  });

  it('the root LICENSE is the Apache License 2.0 the manifests name', () => {
    expect(rootLicense()).to.match(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(rootLicense()).to.contain('END OF TERMS AND CONDITIONS');
    expect(readJson<Manifest>('package.json').license).to.equal('Apache-2.0');
  });

  for (const dir of packageDirs) {
    const manifest = readJson<Manifest>(`${dir}/package.json`);
    const files = (): Set<string> => {
      const listed = tarballs.get(manifest.name);
      if (listed === undefined) throw new Error(`npm pack listed no ${manifest.name}`);
      return listed;
    };

    describe(manifest.name, () => {
      it('ships README.md, LICENSE (the root one), package.json and the built index with its types', () => {
        for (const f of ['README.md', 'LICENSE', 'package.json', 'dist/index.js', 'dist/index.d.ts']) {
          expect([...files()], f).to.include(f);
        }
        expect(readFileSync(path.join(root, dir, 'LICENSE'), 'utf8')).to.equal(rootLicense());
        const js = [...files()].filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
        for (const f of js) expect([...files()], `types of ${f}`).to.include(f.replace(/\.js$/, '.d.ts'));
      });

      it('ships no build state, tests or fixtures', () => {
        const unwanted = [...files()].filter((f) =>
          /\.tsbuildinfo$|(^|\/)test\/|\.test\.[cm]?[jt]s$|(^|\/)tsconfig[^/]*\.json$/.test(f),
        );
        expect(unwanted).to.deep.equal([]);
      });

      it('every source map it ships has its sources in the tarball', () => {
        const missing: string[] = [];
        for (const map of [...files()].filter((f) => f.endsWith('.map'))) {
          const { sources } = JSON.parse(readFileSync(path.join(root, dir, map), 'utf8')) as {
            sources: string[];
          };
          for (const source of sources) {
            const shipped = path.posix.join(path.posix.dirname(map), source);
            if (!files().has(shipped)) missing.push(`${map} -> ${shipped}`);
          }
        }
        expect(missing).to.deep.equal([]);
      });

      it('states its description and license, and no guessed repository', () => {
        expect(manifest.description, 'description').to.be.a('string').with.length.above(20);
        expect(manifest.license).to.equal('Apache-2.0');
        // No public repository exists yet: a package names none rather than a guess.
        expect(manifest.repository, 'repository').to.equal(undefined);
      });

      it('supports the Node.js versions the root package and docs/node-versions.md state', () => {
        const supported = readJson<Manifest>('package.json').engines?.node;
        expect(supported).to.match(/\^22\.13\.0 \|\| >=24/);
        expect(manifest.engines?.node).to.equal(supported);
        expect(readFileSync(path.join(root, 'docs/node-versions.md'), 'utf8')).to.contain(
          `\`engines\`: \`${supported}\``,
        );
      });

      it('declares every package its code loads, and depends on nothing its code never names', () => {
        const declared = {
          ...manifest.dependencies,
          ...manifest.peerDependencies,
          ...manifest.optionalDependencies,
        };
        const undeclared = [...runtimeImports(dir)].filter((name) => !(name in declared));
        expect(undeclared, 'loaded but not declared').to.deep.equal([]);
        const named = quotedNames(dir);
        // A package of ours that uses a feature of another supplies that one's optional peer.
        const supplied = optionalPeersOfOurs(manifest);
        const unused = Object.keys(manifest.dependencies ?? {}).filter(
          (name) => !named.has(name) && !named.has(name.replace(/^@types\//, '')) && !supplied.has(name),
        );
        expect(
          unused,
          'dependencies its dist never names (test-only ones belong in devDependencies)',
        ).to.deep.equal([]);
      });
    });
  }

  it('core: express is an optional peer (the core imports only its types)', () => {
    const core = readJson<Manifest>('packages/core/package.json');
    expect(core.dependencies ?? {}).to.not.have.property('express');
    expect(core.peerDependencies).to.have.property('express');
    expect(core.peerDependenciesMeta?.express?.optional).to.equal(true);
    expect(runtimeImports('packages/core').has('express')).to.equal(false);
  });

  it('signature-statuses: better-sqlite3 and ioredis are optional peers, and installing it alone pulls neither', () => {
    const statuses = readJson<Manifest>('packages/signature-statuses/package.json');
    for (const name of ['better-sqlite3', 'ioredis']) {
      expect(statuses.dependencies ?? {}).to.not.have.property(name);
      expect(statuses.peerDependenciesMeta?.[name]?.optional, name).to.equal(true);
    }
    const lock = readJson<{ packages: Record<string, Manifest> }>('package-lock.json').packages;
    const closure = [...installClosure(lock, 'packages/signature-statuses')];
    expect(closure.filter(([, entry]) => entry.hasInstallScript === true).map(([key]) => key)).to.deep.equal(
      [],
    );
    expect(
      closure.map(([key]) => key).filter((key) => /node_modules\/(better-sqlite3|ioredis)$/.test(key)),
    ).to.deep.equal([]);
  });

  it('core: its transports are optional peers, and installing it alone pulls none of them', () => {
    const transports = ['ws', 'undici', 'proxy-addr', 'rate-limiter-flexible', '@types/express'];
    const core = readJson<Manifest>('packages/core/package.json');
    for (const name of transports) {
      expect(core.dependencies ?? {}).to.not.have.property(name);
      expect(core.peerDependenciesMeta?.[name]?.optional, name).to.equal(true);
    }
    const lock = readJson<{ packages: Record<string, Manifest> }>('package-lock.json').packages;
    const installed = [...installClosure(lock, 'packages/core').keys()].map((key) =>
      key.split('node_modules/').pop(),
    );
    expect(installed.filter((name) => transports.includes(name!))).to.deep.equal([]);
  });

  it('the server depends on every optional peer of ours, so npm ci && npm start has them all', () => {
    const server = readJson<Manifest>('packages/server/package.json');
    const missing = [...optionalPeersOfOurs(server)].filter((name) => !(name in (server.dependencies ?? {})));
    // Express and its types serve only core's Express adapter, which the server does not mount.
    expect(missing.filter((name) => name !== 'express' && name !== '@types/express')).to.deep.equal([]);
  });

  it('installing @rollup-router/routes alone runs no install script (no native build)', () => {
    const lock = readJson<{ packages: Record<string, Manifest> }>('package-lock.json').packages;
    const closure = installClosure(lock, 'packages/routes');
    expect([...closure.keys()]).to.include('node_modules/undici');
    const scripted = [...closure].filter(([, entry]) => entry.hasInstallScript === true).map(([key]) => key);
    expect(scripted).to.deep.equal([]);
    expect([...closure.keys()].some((key) => key.endsWith('node_modules/better-sqlite3'))).to.equal(false);
  });
});

/** The optional peers of the @rollup-router packages `manifest` depends on. */
function optionalPeersOfOurs(manifest: Manifest): Set<string> {
  const ours = Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@rollup-router/'));
  return new Set(
    ours.flatMap((name) => {
      const dependency = readJson<Manifest>(`packages/${name.slice('@rollup-router/'.length)}/package.json`);
      const meta = dependency.peerDependenciesMeta ?? {};
      return Object.keys(meta).filter((peer) => meta[peer]?.optional === true);
    }),
  );
}

/**
 * The lockfile entries npm installs for a package: its dependencies, optional dependencies
 * and required peers, recursively, each resolved as Node resolves it (nearest node_modules).
 */
function installClosure(lock: Record<string, Manifest>, start: string): Map<string, Manifest> {
  const seen = new Map<string, Manifest>();
  const visit = (key: string): void => {
    const entry = lock[key];
    if (entry === undefined || seen.has(key)) return;
    seen.set(key, entry);
    if (entry.link === true && entry.resolved !== undefined) return visit(entry.resolved);
    const required = Object.keys(entry.peerDependencies ?? {}).filter(
      (name) => entry.peerDependenciesMeta?.[name]?.optional !== true,
    );
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...required,
    ];
    for (const name of names) visit(resolveInLock(lock, key, name));
  };
  visit(start);
  return seen;
}

function resolveInLock(lock: Record<string, Manifest>, from: string, name: string): string {
  for (
    let dir = from;
    ;
    dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : ''
  ) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (candidate in lock || dir === '') return candidate;
  }
}

describe('Node.js versions', () => {
  it('every package the lock installs accepts the first release of each Node line we state (no EBADENGINE)', () => {
    const supported = readJson<Manifest>('package.json').engines!.node!;
    const firsts = supported.split('||').map((range) => semver.minVersion(range.trim())!.version);
    const lock = readJson<{ packages: Record<string, { engines?: { node?: string } | string[] }> }>(
      'package-lock.json',
    );
    const refusing = Object.entries(lock.packages).flatMap(([where, pkg]) => {
      const wanted = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
      if (wanted === undefined) return [];
      return firsts
        .filter((node) => !semver.satisfies(node, wanted))
        .map((node) => `${where} (${wanted}) refuses ${node}`);
    });
    expect(refusing).to.deep.equal([]);
  });
});
