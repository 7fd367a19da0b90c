import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { stringify as toYaml } from 'yaml';
import { RouteListError, RouteRegistry, type RouteEntry, type RoutesOptions } from '../src/index.js';
import { routeEntry } from '@rollup-router/test-support/solana';
import { memoryLog, type LogLine } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

const node = routeEntry;

describe('routes file', () => {
  let dir: string;
  let registry: RouteRegistry | undefined;
  let logs: ReturnType<typeof memoryLog>;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'routes-file-'));
    logs = memoryLog();
  });
  afterEach(async () => {
    await registry?.stop();
    registry = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function startWith(file: string, options: Omit<RoutesOptions, 'file'> = {}): Promise<RouteRegistry> {
    registry = new RouteRegistry({ file, watchDebounceMs: 20, ...options });
    await registry.start({ log: logs.log });
    return registry;
  }

  const rejections = (): LogLine[] => logs.lines.filter((l) => l.msg.startsWith('route list rejected'));

  it('loads a JSON file and a YAML file', async () => {
    const a = node();
    const b = node({ countryCode: 'USA', baseFee: 0.5 });
    const json = path.join(dir, 'routes.json');
    const yaml = path.join(dir, 'routes.yaml');
    await writeFile(json, JSON.stringify([a, b]));
    await writeFile(yaml, toYaml([b, a]));
    expect((await startWith(json)).available()).to.deep.equal([a, b]);
    await registry!.stop();
    expect((await startWith(yaml)).available()).to.deep.equal([b, a]);
  });

  it('picks up an edit without a restart', async () => {
    const file = path.join(dir, 'routes.json');
    const [a, b] = [node(), node()];
    await writeFile(file, JSON.stringify([a]));
    const reg = await startWith(file);
    const changes: (readonly RouteEntry[])[] = [];
    reg.onChange((routes) => changes.push(routes));
    await writeFile(file, JSON.stringify([a, b]));
    await waitFor(() => reg.available().length === 2, 'the edit');
    expect(reg.available()).to.deep.equal([a, b]);
    expect(changes).to.deep.equal([[a, b]]);
  });

  it('follows editors that write a new file and rename it over the old one', async () => {
    const file = path.join(dir, 'routes.yml');
    const [a, b, c] = [node(), node(), node()];
    await writeFile(file, toYaml([a]));
    const reg = await startWith(file);
    for (const list of [[b], [b, c]]) {
      const temp = path.join(dir, '.routes.yml.swp');
      await writeFile(temp, toYaml(list));
      await rename(temp, file);
      await waitFor(() => JSON.stringify(reg.available()) === JSON.stringify(list), 'the replaced file');
    }
  });

  it('keeps the last good list when an entry goes bad, and logs file, entry, field and rule', async () => {
    const file = path.join(dir, 'routes.json');
    const a = node();
    await writeFile(file, JSON.stringify([a]));
    const reg = await startWith(file);
    await writeFile(file, JSON.stringify([a, node({ countryCode: 'XYZ' as RouteEntry['countryCode'] })]));
    const [line] = await waitFor(() => rejections().length > 0 && rejections(), 'the rejection');
    expect(line!.level).to.equal(50);
    expect(line!.msg).to.equal(
      `route list rejected, keeping the last good one (1 node): ${file}, entry 1, field countryCode: must be equal to one of the allowed values (enum)`,
    );
    expect(line!.issues).to.deep.equal([
      {
        source: file,
        index: 1,
        field: 'countryCode',
        rule: 'enum',
        message: 'must be equal to one of the allowed values',
      },
    ]);
    expect(reg.available()).to.deep.equal([a]);
  });

  it('keeps the last good list on a syntax error, a duplicate or a deleted file, and takes the fix', async () => {
    const file = path.join(dir, 'routes.json');
    const [a, b] = [node(), node()];
    await writeFile(file, JSON.stringify([a]));
    const reg = await startWith(file);

    await writeFile(file, '[{"identity": ');
    await waitFor(() => rejections().length === 1, 'the syntax error');
    expect(rejections()[0]!.msg).to.match(new RegExp(`${file}: invalid JSON: .+ \\(syntax\\)$`));

    await writeFile(file, JSON.stringify([a, b, { ...a }]));
    await waitFor(() => rejections().length === 2, 'the duplicate');
    expect(rejections()[1]!.msg).to.contain(
      `${file}, entry 2, field identity: identity ${a.identity} is already used by entry 0 (uniqueIdentity)`,
    );

    await unlink(file);
    await waitFor(() => rejections().length === 3, 'the deletion');
    expect(rejections()[2]!.msg).to.contain(`${file}: file not found (read)`);
    expect(reg.available()).to.deep.equal([a]);

    await writeFile(file, JSON.stringify([b, a]));
    await waitFor(() => reg.available()[0]?.identity === b.identity, 'the fixed file');
    expect(reg.available()).to.deep.equal([b, a]);
  });

  it('names the line and column of a YAML syntax error', async () => {
    const file = path.join(dir, 'routes.yaml');
    await writeFile(file, toYaml([node()]));
    const reg = await startWith(file, { watch: false });
    await writeFile(file, '- identity: [unclosed\n  fqdn: x\n');
    const [err] = await reg.reload();
    expect(err).to.be.instanceOf(RouteListError);
    expect(err!.issues[0]).to.include({ source: file, rule: 'syntax' });
    expect(err!.issues[0]!.message).to.match(/^invalid YAML at line \d+, column \d+: /);
  });

  it('reloads on demand (SIGHUP) when not watching, and reports a bad file to the caller', async () => {
    const file = path.join(dir, 'routes.json');
    const [a, b] = [node(), node()];
    await writeFile(file, JSON.stringify([a]));
    const reg = await startWith(file, { watch: false });
    await writeFile(file, JSON.stringify([b]));
    expect(await reg.reload()).to.deep.equal([]);
    expect(reg.available()).to.deep.equal([b]);

    await writeFile(file, JSON.stringify({ routes: [a] }));
    const errors = await reg.reload();
    expect(errors.map((e) => e.message)).to.deep.equal([`${file}: must be array (type)`]);
    expect(rejections()).to.have.length(1);
    expect(reg.available()).to.deep.equal([b]);
  });

  it('refuses to start with a bad or missing file, with the same detail', async () => {
    const file = path.join(dir, 'routes.json');
    await writeFile(file, JSON.stringify([node(), node({ blockTimeMs: -50 })]));
    let err = await startWith(file).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RouteListError);
    expect((err as Error).message).to.equal(
      `${file}, entry 1, field blockTimeMs: must be > 0 (exclusiveMinimum)`,
    );
    for (const missing of [path.join(dir, 'nope.json'), path.join(dir, 'no-such-dir', 'routes.json')]) {
      err = await startWith(missing).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(RouteListError);
      expect((err as Error).message).to.equal(`${missing}: file not found (read)`);
    }
  });
});
