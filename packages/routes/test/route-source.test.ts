import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { RouteListError, RouteRegistry, type RouteEntry, type RouteSource } from '../src/index.js';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { routeEntry } from '@rollup-router/test-support/solana';
import { memoryLog } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

const node = routeEntry;

/** What an embedder writes: nodes kept somewhere else, with a change notification. */
class InMemorySource implements RouteSource {
  readonly name = 'in-memory registry';
  list: unknown = [];
  failure: Error | undefined;
  subscribed = false;
  private changed: (() => void) | undefined;

  load(): Promise<unknown> {
    return this.failure ? Promise.reject(this.failure) : Promise.resolve(structuredClone(this.list));
  }

  subscribe(changed: () => void): () => void {
    this.changed = changed;
    this.subscribed = true;
    return () => {
      this.subscribed = false;
    };
  }

  set(list: unknown): void {
    this.list = list;
    this.changed?.();
  }
}

describe('route sources', () => {
  let registry: RouteRegistry | undefined;
  let logs: ReturnType<typeof memoryLog>;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(() => {
    logs = memoryLog();
  });
  afterEach(async () => {
    await registry?.stop();
    registry = undefined;
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  const rejections = () => logs.lines.filter((l) => l.msg.startsWith('route list rejected'));

  it("feeds an embedder's nodes and follows its change notifications until stopped", async () => {
    const source = new InMemorySource();
    const [a, b] = [node(), node()];
    source.list = [a];
    registry = new RouteRegistry({ source });
    await registry.start({ log: logs.log });
    expect(registry.available()).to.deep.equal([a]);
    source.set([b, a]);
    await waitFor(() => registry!.available().length === 2, 'the new list');
    expect(registry.available()).to.deep.equal([b, a]);
    await registry.stop();
    expect(source.subscribed).to.equal(false);
  });

  it("keeps the source's last good list when it returns a bad one or fails, naming the source", async () => {
    const source = new InMemorySource();
    const a = node();
    source.list = [a];
    registry = new RouteRegistry({ source });
    await registry.start({ log: logs.log });

    source.set([a, node({ fqdn: 'http://10.0.0.1:8899' })]);
    await waitFor(() => rejections().length === 1, 'the rejection');
    expect(rejections()[0]!.msg).to.contain(
      'in-memory registry, entry 1, field fqdn: must be an https:// URL: http:// nodes are listed only with allowInsecure (must match pattern "^https://") (pattern)',
    );

    source.failure = new Error('connection to the database lost');
    source.set([]);
    await waitFor(() => rejections().length === 2, 'the failure');
    expect(rejections()[1]!.msg).to.contain('in-memory registry: connection to the database lost (load)');
    expect(registry.available()).to.deep.equal([a]);
  });

  it('refuses to start when the source fails', async () => {
    const source = new InMemorySource();
    source.failure = new Error('no database');
    registry = new RouteRegistry({ source });
    const err = await registry.start({ log: logs.log }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RouteListError);
    expect((err as Error).message).to.equal('in-memory registry: no database (load)');
    expect(source.subscribed).to.equal(false);
  });

  it('combines inline routes, the file and the source in that order, identities unique across them', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'routes-sources-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'routes.json');
    const [inline, fromFile, fromSource] = [node(), node(), node()];
    await writeFile(file, JSON.stringify([fromFile]));
    const source = new InMemorySource();
    source.list = [fromSource];
    registry = new RouteRegistry({ routes: [inline], file, source, watchDebounceMs: 20 });
    await registry.start({ log: logs.log });
    expect(registry.available()).to.deep.equal([inline, fromFile, fromSource]);

    await writeFile(file, JSON.stringify([fromFile, { ...inline, countryCode: 'FRA' }]));
    await waitFor(() => rejections().length === 1, 'the duplicate');
    expect(rejections()[0]!.msg).to.contain(
      `${file}, entry 1, field identity: identity ${inline.identity} is already used by entry 0 of inline routes (uniqueIdentity)`,
    );
    expect(registry.available()).to.deep.equal([inline, fromFile, fromSource]);
  });

  it('keeps probing a node whose entry is unchanged, stops probing a removed one, and re-probes a moved one', async () => {
    const [stay, leave, oldHome, newHome] = await Promise.all([
      SolanaStandIn.start(),
      SolanaStandIn.start(),
      SolanaStandIn.start(),
      SolanaStandIn.start(),
    ]);
    cleanups.push(() => Promise.all([stay, leave, oldHome, newHome].map((f) => f.close())));
    const a = node({ fqdn: stay.url });
    const b = node({ fqdn: leave.url });
    const c = node({ fqdn: oldHome.url });
    const source = new InMemorySource();
    source.list = [a, b, c];
    registry = new RouteRegistry({ source, allowInsecure: true, health: { intervalMs: 10, timeoutMs: 500 } });
    await registry.start({ log: logs.log });
    expect(registry.available()).to.deep.equal([a, b, c]);

    const published: (readonly RouteEntry[])[] = [];
    registry.onChange((routes) => published.push(routes));
    const moved = { ...c, fqdn: newHome.url };
    const repriced = { ...a, baseFee: 10 };
    source.set([repriced, moved]);
    await waitFor(
      () => registry!.available()[1]?.fqdn === newHome.url,
      'the moved node to be probed at its new URL',
    );
    expect(registry.available()).to.deep.equal([repriced, moved]);
    // A node whose URL did not change keeps its health: it is never unlisted meanwhile.
    expect(published.length).to.be.greaterThan(0);
    expect(published.every((routes) => routes[0]?.identity === a.identity)).to.equal(true);

    const seen = [leave.methods.length, oldHome.methods.length];
    const stayed = stay.methods.length;
    await waitFor(() => stay.methods.length >= stayed + 3, 'more probes of the node that stayed');
    await sleep(30);
    expect([leave.methods.length, oldHome.methods.length]).to.deep.equal(seen);
  });
});
