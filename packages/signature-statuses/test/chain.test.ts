import { Readable } from 'node:stream';
import { expect } from 'chai';
import {
  importStatuses,
  signatureStatusesPlugin,
  type SignatureStatusesOptions,
  type SignatureStatusesPlugin,
} from '../src/index.js';
import { memoryLog } from '@rollup-router/test-support/http';
import { randomSignature, randomSignatures, status } from '@rollup-router/test-support/solana';
import { tempDir } from '@rollup-router/test-support/temp-dir';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { StatusEvents, type LookupLayer } from '../src/events.js';
import type { LearnedStatus, StatusLayer } from '../src/layer.js';
import { MemoryCache } from '../src/memory-cache.js';
import type { SignatureStatus } from '../src/status.js';
import { StatusChain } from '../src/status-chain.js';
import { upstreamClient } from '../src/upstream/call-upstream.js';
import { UpstreamDirectory } from '../src/upstream/directory.js';
import { UpstreamFanOut } from '../src/upstream/fan-out.js';

/** A layer across the network, as a shared one would be: it answers in a later turn. */
class RemoteLayer implements StatusLayer {
  readonly name = 'store';
  readonly known = new Map<string, SignatureStatus>();
  readonly learned: LearnedStatus[] = [];

  async find(signatures: readonly string[], found: Map<string, SignatureStatus | null>): Promise<string[]> {
    await new Promise((r) => setImmediate(r));
    return signatures.filter((s) => {
      const status = this.known.get(s);
      if (status) found.set(s, status);
      return !status;
    });
  }

  learn(statuses: readonly LearnedStatus[]): void {
    this.learned.push(...statuses);
  }
}

interface LookupError {
  code: number;
  data?: { upstreams?: { url: string; cause: string; detail: string }[] };
}

const failureOf = (pending: Promise<unknown>): Promise<LookupError> =>
  pending.then(
    () => {
      throw new Error('expected the lookup to fail');
    },
    (err: unknown) => err as LookupError,
  );

/** The chain without HTTP in front of it: plugin.lookup, with real upstream stand-ins behind it. */
describe('signature statuses: the chain', () => {
  const standIns: SolanaStandIn[] = [];
  let plugin: SignatureStatusesPlugin | undefined;
  let logs: ReturnType<typeof memoryLog>;

  const upstreams = async (...slots: number[]) => {
    const started = await Promise.all(slots.map((s) => SolanaStandIn.start(s)));
    standIns.push(...started);
    return started;
  };
  const start = async (options: SignatureStatusesOptions) => {
    plugin = signatureStatusesPlugin(options);
    await plugin.start!({ log: logs.log });
    return plugin;
  };

  beforeEach(() => (logs = memoryLog('warn')));
  afterEach(async () => {
    await plugin?.stop!();
    plugin = undefined;
    await Promise.all(standIns.splice(0).map((s) => s.close()));
  });

  describe('result.context.slot never goes backwards', () => {
    let tmp: ReturnType<typeof tempDir>;
    beforeEach(() => (tmp = tempDir()));
    afterEach(() => tmp.remove());

    it('counts the slots of statuses served from the store (imported) and from memory', async () => {
      const [high, low] = randomSignatures(2);
      const path = tmp.file('statuses.db');
      const lines = [
        { signature: high, slot: 900, err: null, confirmationStatus: 'finalized' },
        { signature: low, slot: 300, err: null, confirmationStatus: 'finalized' },
      ];
      await importStatuses(path, Readable.from(lines.map((l) => JSON.stringify(l) + '\n')));
      const p = await start({ store: { path } });
      expect((await p.lookup([high!])).context.slot).to.equal(900); // from the store
      expect((await p.lookup([low!])).context.slot).to.equal(900); // from the store, an older slot
      expect((await p.lookup([low!, high!])).context.slot).to.equal(900); // from memory
      expect((await p.lookup([low!])).context.slot).to.equal(900);
    });

    it('an upstream behind the slots already served does not take the slot back', async () => {
      const [up] = await upstreams(100);
      const [known, unknown] = randomSignatures(2);
      up!.statuses.set(known!, status('finalized', 50));
      const p = await start({ upstreams: [{ url: up!.url }] });
      expect((await p.lookup([known!])).context).to.deep.equal({ apiVersion: '2.2.1', slot: 100 });
      up!.slot = 80; // another node behind it, say
      expect((await p.lookup([unknown!])).context.slot).to.equal(100);
    });
  });

  it('the lookup-wide deadlineMs ends a lookup whose upstream is slower than it (-32060)', async () => {
    const [up] = await upstreams(1);
    up!.behaviour = { kind: 'hang' };
    const p = await start({ upstreams: [{ url: up!.url }], upstreamTimeoutMs: 60_000, deadlineMs: 100 });
    const error = await failureOf(p.lookup([randomSignature()]));
    expect(error.code).to.equal(-32060);
    expect(error.data?.upstreams).to.deep.equal([
      { url: up!.url, cause: 'timeout', detail: 'lookup deadline passed' },
    ]);
  });

  describe('extraUpstreams', () => {
    it('when it throws, the configured upstreams answer and the failure is logged', async () => {
      const [up] = await upstreams(10);
      const sig = randomSignature();
      up!.statuses.set(sig, status('finalized', 9));
      const p = await start({
        upstreams: [{ url: up!.url }],
        extraUpstreams: () => {
          throw new Error('registry gone');
        },
      });
      expect((await p.lookup([sig])).value).to.deep.equal([status('finalized', 9)]);
      const line = logs.lines.find(
        (l) => l.msg === 'extraUpstreams failed; asking the configured upstreams only',
      );
      expect(line?.err).to.include({ message: 'registry gone' });
    });

    it('when its promise rejects with no upstream configured, the lookup is -32063', async () => {
      const p = await start({ extraUpstreams: () => Promise.reject(new Error('nope')) });
      expect((await failureOf(p.lookup([randomSignature()]))).code).to.equal(-32063);
    });

    it('skips (and logs) an extra URL that is not http(s), asking the others', async () => {
      const [extra] = await upstreams(10);
      const sig = randomSignature();
      extra!.statuses.set(sig, status('confirmed', 8));
      const p = await start({ extraUpstreams: () => ['ftp://key@files.example/x', 'not a url', extra!.url] });
      expect((await p.lookup([sig])).value).to.deep.equal([status('confirmed', 8)]);
      const skipped = logs.lines.filter((l) => l.msg === 'extra upstream is not an http(s) URL; skipped');
      expect(skipped.map((l) => l.upstream)).to.deep.equal(['ftp://files.example/…', '(invalid URL)']);
    });
  });

  describe('upstream connections', () => {
    it('evicts the least recently used pool beyond maxUpstreamPools, and still asks every upstream', async () => {
      const [a, b] = await upstreams(10, 20);
      const p = await start({ upstreams: [{ url: a!.url }, { url: b!.url }], maxUpstreamPools: 1 });
      for (let round = 0; round < 3; round++) {
        const [onA, onB] = randomSignatures(2);
        a!.statuses.set(onA!, status('finalized', 5));
        b!.statuses.set(onB!, status('finalized', 6));
        expect((await p.lookup([onA!, onB!])).value).to.deep.equal([
          status('finalized', 5),
          status('finalized', 6),
        ]);
      }
      // Each round opened both pools again: the other one had closed the evicted one's connection.
      expect([a!.connections, b!.connections]).to.deep.equal([3, 3]);
    });

    it('keeps one pool per upstream within maxUpstreamPools (the connection is reused)', async () => {
      const [a, b] = await upstreams(10, 20);
      const p = await start({ upstreams: [{ url: a!.url }, { url: b!.url }], maxUpstreamPools: 2 });
      for (let round = 0; round < 3; round++) await p.lookup(randomSignatures(2));
      expect([a!.connections, b!.connections]).to.deep.equal([1, 1]);
    });

    it('sends the credentials of an upstream URL as basic auth, never showing them', async () => {
      const [up] = await upstreams(10);
      up!.basicAuth = 'operator:pa ss:é';
      const sig = randomSignature();
      up!.statuses.set(sig, status('finalized', 7));
      const calls: string[] = [];
      const url = up!.url.replace('http://', 'http://operator:pa%20ss%3A%C3%A9@');
      const p = await start({
        upstreams: [{ url }],
        onUpstreamCall: (u, outcome) => calls.push(`${u} ${outcome}`),
      });
      expect((await p.lookup([sig])).value).to.deep.equal([status('finalized', 7)]);
      expect(calls).to.deep.equal([`${up!.url}/… ok`]);
    });

    it('an upstream refusing the credentials is a bad response (HTTP 401 with no JSON-RPC body)', async () => {
      const [up] = await upstreams(10);
      up!.basicAuth = 'operator:right';
      const p = await start({ upstreams: [{ url: up!.url.replace('http://', 'http://operator:wrong@') }] });
      const error = await failureOf(p.lookup([randomSignature()]));
      expect(error.code).to.equal(-32062);
      expect(error.data?.upstreams?.[0]).to.deep.equal({
        url: `${up!.url}/…`,
        cause: 'bad_response',
        detail: 'HTTP 401, body is not JSON',
      });
    });

    for (const chunked of [false, true]) {
      it(`does not read an answer over 1 MiB (${chunked ? 'streamed, no content-length' : 'declared in content-length'}): -32062`, async () => {
        const [up] = await upstreams(10);
        up!.behaviour = { kind: 'huge', bytes: (1 << 20) + 1, chunked };
        const p = await start({ upstreams: [{ url: up!.url }] });
        const error = await failureOf(p.lookup([randomSignature()]));
        expect(error.code).to.equal(-32062);
        expect(error.data?.upstreams?.[0]?.detail).to.equal('answer over 1048576 bytes');
      });
    }

    it('reads an answer just under 1 MiB', async () => {
      const [up] = await upstreams(10);
      up!.behaviour = { kind: 'huge', bytes: (1 << 20) - 200, chunked: true };
      const p = await start({ upstreams: [{ url: up!.url }] });
      expect((await p.lookup([randomSignature()])).value).to.deep.equal([null]);
    });
  });

  it('takes a layer that answers asynchronously, between memory and the upstreams, with no change elsewhere', async () => {
    const [up] = await upstreams(700);
    const [remote, upstream] = randomSignatures(2);
    const remoteLayer = new RemoteLayer();
    remoteLayer.known.set(remote!, status('finalized', 650));
    up!.statuses.set(upstream!, status('finalized', 640));
    const counts: [LookupLayer, number][] = [];
    const events = new StatusEvents({ onLookup: (layer, n) => counts.push([layer, n]) });
    const options = { upstreams: [{ url: up!.url }], upstreamTimeoutMs: 1000, maxTracked: 10 };
    const chain = new StatusChain({
      layers: [new MemoryCache(100, 0), remoteLayer],
      fanOut: new UpstreamFanOut(
        upstreamClient(1, 4),
        new UpstreamDirectory(options, undefined, events),
        events,
      ),
      deadlineMs: 1000,
      apiVersion: '2.2.1',
      events,
    });
    await chain.start(logs.log);
    try {
      expect(await chain.lookup([remote!, upstream!])).to.deep.equal({
        context: { apiVersion: '2.2.1', slot: 700 },
        value: [status('finalized', 650), status('finalized', 640)],
      });
      // Memory learned from the remote layer and from the upstream; the remote layer from the upstream only.
      expect(remoteLayer.learned.map(([s]) => s)).to.deep.equal([upstream]);
      const again = chain.lookup([upstream!, remote!]);
      expect(again).to.not.be.instanceOf(Promise);
      expect(counts).to.deep.equal([
        ['store', 1],
        ['upstream', 1],
        ['memory', 2],
      ]);
    } finally {
      await chain.stop();
    }
  });
});
