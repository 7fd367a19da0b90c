import { Readable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import {
  importStatuses,
  ImportLineError,
  signatureStatusesPlugin,
  StatusStore,
  type FinalizedRecord,
} from '../src/index.js';
import { randomSignature, randomSignatures, status } from '@rollup-router/test-support/solana';
import { tempDir } from '@rollup-router/test-support/temp-dir';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { createLogger } from '@rollup-router/core';

const log = createLogger({ level: 'silent' });
const lines = (...values: unknown[]) =>
  values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n';

describe('signature statuses: durable store', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  it('serves a finalized status learned from an upstream after a restart, every upstream down', async () => {
    const up = await SolanaStandIn.start(50);
    const [fin, conf] = randomSignatures(2);
    up.statuses.set(fin!, status('finalized', 40, { InstructionError: [0, { Custom: 1 }] }));
    up.statuses.set(conf!, status('confirmed', 45));
    const options = { store: { path: tmp.file('statuses.db') }, upstreams: [{ url: up.url }] };

    const first = signatureStatusesPlugin(options);
    await first.start!({ log });
    const learned = await first.lookup([fin!, conf!]);
    await first.stop!();
    await up.close();

    const second = signatureStatusesPlugin(options);
    await second.start!({ log });
    try {
      const after = await second.lookup([fin!]);
      expect(after.value).to.deep.equal([learned.value[0]]);
      // A confirmed status may still change: it is not persisted, so with every upstream down it cannot be answered.
      const err = await second.lookup([conf!]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.have.property('code', -32061);
    } finally {
      await second.stop!();
    }
  });

  it('writes a finalized status once: a later, different answer for it does not change it', async () => {
    const store = StatusStore.open(tmp.file('s.db'));
    try {
      const sig = randomSignature();
      expect(store.putFinalized([{ signature: sig, slot: 1, err: null }])).to.equal(1);
      expect(store.putFinalized([{ signature: sig, slot: 2, err: 'AccountInUse' }])).to.equal(0);
      expect(store.get(sig)).to.deep.equal(status('finalized', 1));
    } finally {
      store.close();
    }
  });

  describe("the store's page cache (option store.cacheMiB)", function () {
    this.timeout(300_000);
    const probe = fileURLToPath(new URL('./store-memory-probe.ts', import.meta.url));
    const mallocGrowth = async (dir: string, options: object): Promise<number> => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', probe, tmp.file(dir), JSON.stringify(options)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const code = await new Promise((done) => child.once('exit', done));
      expect(code, out).to.equal(0);
      return (JSON.parse(out.trim().split('\n').pop()!) as { grewBy: number }).grewBy;
    };
    const MiB = 2 ** 20;

    // Measured against a 20 MiB cache rather than alone: the rest of the growth, the writes'
    // own, is about 5 MiB on Node 20 and 17 on Node 24. With better-sqlite3's 16 MiB default
    // (the old code) the two differ by about 4 MiB; with 2 MiB, by about 18.
    // The malloc heap also holds what other code frees late, so one pair of probes on a loaded
    // machine can show anything (a CI run once saw the default grow 7 MiB more than 20 MiB).
    // Up to three pairs: the old 16 MiB default never shows the 12 MiB gap in any of them.
    it('by default keeps 2 MiB of pages in memory: 22 MB of store grows it far less than a 20 MiB cache does', async () => {
      const gaps: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const byDefault = await mallocGrowth(`default-${attempt}`, {});
        const with20 = await mallocGrowth(`20-mib-${attempt}`, { cacheMiB: 20 });
        gaps.push(with20 - byDefault);
        if (with20 - byDefault > 12 * MiB) break;
      }
      expect(Math.max(...gaps), `gaps in bytes: ${gaps.join(', ')}`).to.be.above(12 * MiB);
    });

    it('refuses a size that is not a number above 0 when the store is opened directly', () => {
      for (const cacheMiB of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
        expect(() => StatusStore.open(tmp.file('s.db'), { cacheMiB })).to.throw(
          RangeError,
          /cacheMiB must be a number above 0/,
        );
    });
  });

  describe('getMany: one read for a list of signatures', () => {
    const storeWith = (records: FinalizedRecord[]) => {
      const store = StatusStore.open(tmp.file('s.db'));
      store.putFinalized(records);
      return store;
    };

    it('returns the stored statuses among known, unknown and repeated signatures, and nothing else', () => {
      const [a, b, c, unknown1, unknown2] = randomSignatures(5);
      const err: FinalizedRecord['err'] = { InstructionError: [0, { Custom: 7 }] };
      const store = storeWith([
        { signature: a!, slot: 3, err: null },
        { signature: b!, slot: 4, err },
        { signature: c!, slot: 5, err: 'AccountInUse' },
      ]);
      try {
        const found = store.getMany([unknown1!, b!, a!, unknown2!, b!, a!]);
        expect([...found.keys()].sort()).to.deep.equal([a!, b!].sort());
        expect(found.get(a!)).to.deep.equal(status('finalized', 3));
        expect(found.get(b!)).to.deep.equal(status('finalized', 4, err));
        // The same statuses as the one-signature read, key order included (the wire's).
        expect(JSON.stringify(found.get(b!))).to.equal(JSON.stringify(store.get(b!)));
      } finally {
        store.close();
      }
    });

    it('answers one signature, none, and 256 of which every other one is stored', () => {
      const sigs = randomSignatures(256);
      const store = storeWith(
        sigs.filter((_, i) => i % 2 === 0).map((signature, i) => ({ signature, slot: i, err: null })),
      );
      try {
        expect(store.getMany([]).size).to.equal(0);
        expect([...store.getMany([sigs[0]!])]).to.deep.equal([[sigs[0]!, status('finalized', 0)]]);
        expect(store.getMany([sigs[1]!]).size).to.equal(0);
        const found = store.getMany(sigs);
        expect(found.size).to.equal(128);
        sigs.forEach((s, i) =>
          expect(found.get(s)).to.deep.equal(i % 2 === 0 ? status('finalized', i / 2) : undefined),
        );
      } finally {
        store.close();
      }
    });

    it('serves a lookup mixing stored, upstream-known and unknown signatures, each from its source', async () => {
      const up = await SolanaStandIn.start(60);
      const [stored, upstream, unknown] = randomSignatures(3);
      up.statuses.set(upstream!, status('confirmed', 61));
      const path = tmp.file('s.db');
      const seed = StatusStore.open(path);
      seed.putFinalized([{ signature: stored!, slot: 8, err: null }]);
      seed.close();
      const plugin = signatureStatusesPlugin({
        memory: { maxEntries: 0 },
        store: { path },
        upstreams: [{ url: up.url }],
      });
      await plugin.start!({ log });
      try {
        const answer = await plugin.lookup([unknown!, stored!, upstream!, stored!]);
        expect(answer.value).to.deep.equal([
          null,
          status('finalized', 8),
          status('confirmed', 61),
          status('finalized', 8),
        ]);
        // The upstream was asked only for what the store did not know.
        expect(up.requests.flatMap((r) => r.signatures).sort()).to.deep.equal([unknown!, upstream!].sort());
      } finally {
        await plugin.stop!();
        await up.close();
      }
    });
  });

  describe('the filter of stored signatures (option filter, on in the plugin)', () => {
    const record = (signature: string, slot = 1): FinalizedRecord => ({ signature, slot, err: null });
    /** Event-loop turns until the filter rules lookups out; a build that never ends fails the test. */
    const untilFiltering = async (store: StatusStore) => {
      for (let turn = 0; !store.filtering; turn++) {
        if (turn > 10_000) throw new Error('the filter was not built');
        await new Promise((resolve) => setImmediate(resolve));
      }
    };

    it('finds what another connection wrote after the filter was built (the import CLI beside a running server)', async () => {
      const path = tmp.file('s.db');
      const server = StatusStore.open(path, { filter: true });
      const importer = StatusStore.open(path);
      try {
        const [own, imported, unknown] = randomSignatures(3);
        server.putFinalized([record(own!, 5)]);
        await untilFiltering(server);
        expect(server.get(unknown!)).to.equal(undefined);

        importer.putFinalized([record(imported!, 6)]);
        // Another connection's commit is seen from the next event-loop turn on.
        await new Promise((resolve) => setImmediate(resolve));
        expect(server.get(imported!)).to.deep.equal(status('finalized', 6));
        expect([...server.getMany([unknown!, imported!, own!]).keys()]).to.deep.equal([imported!, own!]);
        // Rebuilt with the other connection's rows, the filter is used again and still finds them.
        await untilFiltering(server);
        expect(server.get(imported!)).to.deep.equal(status('finalized', 6));
        expect(server.getMany([imported!, unknown!]).size).to.equal(1);
      } finally {
        importer.close();
        server.close();
      }
    });

    it('finds the rows stored before it opened, while its filter is built and once it is', async () => {
      const path = tmp.file('s.db');
      // More than one slice of the build (5,000 a turn), so the build spans several turns.
      const stored = randomSignatures(12_000);
      const seed = StatusStore.open(path);
      seed.putFinalized(stored.map((s, i) => record(s, i)));
      seed.close();
      const store = StatusStore.open(path, { filter: true });
      try {
        const sample = [stored[0]!, stored[6_000]!, stored[11_999]!];
        const [unknown] = randomSignatures(1);
        expect(store.filtering).to.equal(false);
        expect(store.getMany([...sample, unknown!]).size).to.equal(3);
        await untilFiltering(store);
        expect(store.getMany([...sample, unknown!]).size).to.equal(3);
        expect(stored.every((s) => store.get(s) !== undefined)).to.equal(true);
      } finally {
        store.close();
      }
    });

    it('finds what it wrote itself while the filter was being built, where the build had already read', async () => {
      const path = tmp.file('s.db');
      const seed = StatusStore.open(path);
      seed.putFinalized(randomSignatures(12_000).map((s) => record(s)));
      seed.close();
      const store = StatusStore.open(path, { filter: true });
      try {
        await new Promise((resolve) => setImmediate(resolve));
        expect(store.filtering).to.equal(false);
        // Below every stored text: the build's next slices start after what it has read.
        const early = `1111${randomSignatures(1)[0]!.slice(4)}`;
        store.putFinalized([record(early, 9)]);
        await untilFiltering(store);
        expect(store.get(early)).to.deep.equal(status('finalized', 9));
      } finally {
        store.close();
      }
    });

    it('finds every signature written past the size its filter was built for, before and after a bigger one is built', async () => {
      const store = StatusStore.open(tmp.file('s.db'), { filter: true });
      try {
        await untilFiltering(store);
        // The smallest filter holds 65,536; writing past it starts a build of a bigger one.
        const written = randomSignatures(70_000);
        for (let at = 0; at < written.length; at += 10_000)
          store.putFinalized(written.slice(at, at + 10_000).map((s) => record(s)));
        expect(written.every((s) => store.get(s) !== undefined)).to.equal(true);
        // 70,000 rows are 14 slices of the build, one a turn: the bigger filter is in use after these.
        for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
        expect(store.filtering).to.equal(true);
        expect(written.every((s) => store.get(s) !== undefined)).to.equal(true);
        expect(store.getMany(randomSignatures(256)).size).to.equal(0);
      } finally {
        store.close();
      }
    });
  });

  it('opens the SQLite file on start() and closes it on stop()', async () => {
    const plugin = signatureStatusesPlugin({ store: { path: tmp.file('s.db') } });
    expect(plugin.store).to.equal(undefined);
    await plugin.start!({ log });
    const store = plugin.store!;
    expect(store.open).to.equal(true);
    // The plugin's store keeps the filter of stored signatures.
    for (let turn = 0; !store.filtering; turn++) {
      if (turn > 1_000) throw new Error('the plugin store built no filter');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await plugin.stop!();
    expect(store.open).to.equal(false);
    expect(plugin.store).to.equal(undefined);
  });

  describe('importStatuses', () => {
    it('imports into the store of a running plugin, served at once', async () => {
      const plugin = signatureStatusesPlugin({ store: { path: tmp.file('s.db') } });
      await plugin.start!({ log });
      try {
        const sig = randomSignature();
        const input = lines({
          signature: sig,
          slot: 12,
          err: 'AccountInUse',
          confirmationStatus: 'finalized',
        });
        expect(await importStatuses(plugin.store!, Readable.from([input]))).to.deep.equal({
          lines: 1,
          imported: 1,
          alreadyPresent: 0,
        });
        expect((await plugin.lookup([sig])).value).to.deep.equal([status('finalized', 12, 'AccountInUse')]);
      } finally {
        await plugin.stop!();
      }
    });

    it('imports short and full lines, which are then served without any upstream', async () => {
      const [a, b, c] = randomSignatures(3);
      const full = {
        signature: b,
        ...status('finalized', 8, { InsufficientFundsForRent: { account_index: 2 } }),
      };
      const file = tmp.file('in.jsonl');
      writeFileSync(
        file,
        lines({ signature: a, slot: 7, err: null, confirmationStatus: 'finalized' }, '', full, {
          signature: c,
          slot: 9,
          err: 'BlockhashNotFound',
          confirmationStatus: 'finalized',
        }),
      );
      const path = tmp.file('s.db');
      expect(await importStatuses(path, file)).to.deep.equal({ lines: 3, imported: 3, alreadyPresent: 0 });

      const plugin = signatureStatusesPlugin({ store: { path } });
      await plugin.start!({ log });
      try {
        const answer = await plugin.lookup([a!, b!, c!]);
        expect(answer.value).to.deep.equal([
          status('finalized', 7),
          status('finalized', 8, { InsufficientFundsForRent: { account_index: 2 } }),
          status('finalized', 9, 'BlockhashNotFound'),
        ]);
      } finally {
        await plugin.stop!();
      }
    });

    it('is idempotent: importing the same lines again adds nothing', async () => {
      const path = tmp.file('s.db');
      const input = lines(
        ...randomSignatures(5).map((signature, i) => ({
          signature,
          slot: i,
          err: null,
          confirmationStatus: 'finalized',
        })),
      );
      expect(await importStatuses(path, Readable.from([input]))).to.deep.equal({
        lines: 5,
        imported: 5,
        alreadyPresent: 0,
      });
      expect(await importStatuses(path, Readable.from([input]))).to.deep.equal({
        lines: 5,
        imported: 0,
        alreadyPresent: 5,
      });
      const store = StatusStore.open(path);
      expect(store.count()).to.equal(5);
      store.close();
    });

    const bad: [string, unknown, RegExp][] = [
      ['not JSON', '{"signature":', /not valid JSON/],
      [
        'a signature that is not base58 of 64 bytes',
        { signature: 'abc', slot: 1, err: null, confirmationStatus: 'finalized' },
        /\/signature/,
      ],
      [
        'a status that is not finalized',
        { signature: randomSignature(), slot: 1, err: null, confirmationStatus: 'confirmed' },
        /\/confirmationStatus/,
      ],
      [
        'a full status whose status and err disagree',
        {
          signature: randomSignature(),
          ...status('finalized', 1, 'AccountInUse'),
          status: { Err: 'AccountNotFound' },
        },
        /same error/,
      ],
      [
        'an unknown key',
        { signature: randomSignature(), slot: 1, err: null, confirmationStatus: 'finalized', memo: 'x' },
        /memo/,
      ],
    ];
    for (const [what, line, reason] of bad) {
      it(`rejects the whole file on ${what}, naming the line; nothing is written`, async () => {
        const path = tmp.file('s.db');
        const good = () => ({
          signature: randomSignature(),
          slot: 3,
          err: null,
          confirmationStatus: 'finalized',
        });
        const err = await importStatuses(path, Readable.from([lines(good(), good(), line, good())])).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(ImportLineError);
        expect((err as ImportLineError).line).to.equal(3);
        expect((err as Error).message)
          .to.match(/^line 3: /)
          .and.match(reason);
        const store = StatusStore.open(path);
        expect(store.count()).to.equal(0);
        store.close();
      });
    }
  });
});
