import { expect } from 'chai';
import { createLogger } from '@rollup-router/core';
import {
  signatureStatusesPlugin,
  type SignatureStatusesOptions,
  type SignatureStatusesPlugin,
} from '../src/index.js';
import {
  randomSignature,
  randomSignatures,
  signaturesCountingUp,
  signaturesSharingKey,
  status,
} from '@rollup-router/test-support/solana';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

const log = createLogger({ level: 'silent' });

describe('signature statuses: memory', () => {
  let up: SolanaStandIn;
  let plugin: SignatureStatusesPlugin | undefined;
  const start = async (options: SignatureStatusesOptions) => {
    plugin = signatureStatusesPlugin({ upstreams: [{ url: up.url }], ...options });
    await plugin.start!({ log });
    return plugin;
  };
  beforeEach(async () => (up = await SolanaStandIn.start(100)));
  afterEach(async () => {
    await plugin?.stop!();
    plugin = undefined;
    await up.close();
  });

  it('serves a finalized status from memory: the upstream is asked once', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('finalized', 90));
    const p = await start({});
    const first = await p.lookup([sig]);
    const second = await p.lookup([sig]);
    expect(second.value).to.deep.equal(first.value);
    expect(up.requestCount).to.equal(1);
  });

  it('asks the upstream only for what memory does not know, and answers each in its place', async () => {
    const [before, known1, between, known2, after] = randomSignatures(5);
    for (const [i, s] of [before, known1, between, known2, after].entries())
      up.statuses.set(s!, status('finalized', 100 + i));
    const p = await start({});
    await p.lookup([known1!, known2!]);
    const asked = [before!, known1!, between!, known2!, after!, known1!];
    expect((await p.lookup(asked)).value).to.deep.equal(asked.map((s) => up.statuses.get(s)));
    expect(up.requests[1]!.signatures).to.deep.equal([before, between, after]);
  });

  it('by default never serves a processed or confirmed status from memory', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('confirmed', 90));
    const p = await start({});
    await p.lookup([sig]);
    up.statuses.set(sig, status('finalized', 90));
    expect((await p.lookup([sig])).value).to.deep.equal([status('finalized', 90)]);
    expect(up.requestCount).to.equal(2);
  });

  it('serves an unfinalized status from memory within unfinalizedTtlMs', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('processed', 90));
    const p = await start({ memory: { unfinalizedTtlMs: 60000 } });
    await p.lookup([sig]);
    expect((await p.lookup([sig])).value).to.deep.equal([status('processed', 90)]);
    expect(up.requestCount).to.equal(1);
  });

  it('asks again once unfinalizedTtlMs has passed', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('processed', 90));
    const p = await start({ memory: { unfinalizedTtlMs: 20 } });
    await p.lookup([sig]);
    up.statuses.set(sig, status('confirmed', 91));
    let latest: unknown[] = [];
    // Polls (bounded) until the entry has expired; no fixed sleep decides the outcome.
    for (let i = 0; i < 400 && up.requestCount === 1; i++) {
      latest = (await p.lookup([sig])).value;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(up.requestCount).to.equal(2);
    expect(latest).to.deep.equal([status('confirmed', 91)]);
  });

  it('maxEntries 0 turns memory off', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('finalized', 90));
    const p = await start({ memory: { maxEntries: 0 } });
    await p.lookup([sig]);
    await p.lookup([sig]);
    expect(up.requestCount).to.equal(2);
  });
  /**
   * Lets the upstream know `learned` (finalized), looks them up once, then looks up `asked`:
   * that second answer, and what each layer settled for it.
   */
  const learnThenAsk = async (learned: string[], asked: string[]) => {
    learned.forEach((s, i) => up.statuses.set(s, status('finalized', 1000 + i)));
    const counts: [string, number][] = [];
    const p = await start({ onLookup: (layer, n) => counts.push([layer, n]) });
    await p.lookup(learned);
    counts.length = 0;
    return { value: (await p.lookup(asked)).value, counts };
  };

  it('answers a 256-signature call from memory in request order, duplicates included, counting each distinct one once', async () => {
    const distinct = randomSignatures(200);
    // Every one of the 200 in a shuffled order, then 56 of them again.
    const asked = Array.from({ length: 256 }, (_, i) => distinct[(i * 7) % 200]!);
    const { value, counts } = await learnThenAsk(distinct, asked);
    expect(value).to.deep.equal(asked.map((s) => up.statuses.get(s)));
    expect(counts).to.deep.equal([['memory', 200]]);
    expect(up.requestCount).to.equal(1);
  });

  it('keeps 256 signatures that differ only in their last digits, counting up: all answered from memory', async () => {
    // Keys once mixed the last digits linearly: "…1Q" and "…22" (+1 and -31) shared one,
    // and a memory holding many such signatures kept one per key.
    const sigs = signaturesCountingUp(256);
    const { value, counts } = await learnThenAsk(sigs, sigs);
    expect(value).to.deep.equal(sigs.map((s) => up.statuses.get(s)));
    expect(counts).to.deep.equal([['memory', 256]]);
    expect(up.requestCount).to.equal(1);
  });

  describe('two signatures that end in the same characters (they share a key in memory)', () => {
    it('each is answered with its own status, never the other one', async () => {
      const [a, b] = signaturesSharingKey();
      up.statuses.set(a, status('finalized', 90));
      up.statuses.set(b, status('finalized', 91));
      const p = await start({});
      await p.lookup([a, b]);
      expect((await p.lookup([a])).value).to.deep.equal([status('finalized', 90)]);
      expect((await p.lookup([b, a, b])).value).to.deep.equal(
        [91, 90, 91].map((slot) => status('finalized', slot)),
      );
    });

    it("one becoming finalized does not drop the other's unfinalized status", async () => {
      const [a, b] = signaturesSharingKey();
      up.statuses.set(a, status('confirmed', 90));
      up.statuses.set(b, status('finalized', 91));
      const p = await start({ memory: { unfinalizedTtlMs: 60000 } });
      await p.lookup([a]);
      await p.lookup([b]);
      expect((await p.lookup([a])).value).to.deep.equal([status('confirmed', 90)]);
      expect(up.requestCount).to.equal(2);
    });
  });
});
