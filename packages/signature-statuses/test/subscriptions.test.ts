import { expect } from 'chai';
import { signatureStatusesPlugin, type PollRound, type SignatureNotification } from '../src/index.js';
import { randomSignatures, status } from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

const silent = { log: (await import('@rollup-router/core')).createLogger({ level: 'silent' }) };

describe('signatureSubscribe polling (SignatureWatch) against a loopback upstream', function () {
  this.timeout(60_000);
  let upstream: SolanaStandIn;
  beforeEach(async () => {
    upstream = await SolanaStandIn.start(5000);
  });
  afterEach(() => upstream.close());

  it('10,000 pending subscriptions cost ceil(10000/256) = 40 upstream requests per poll round, not 10,000', async () => {
    const plugin = signatureStatusesPlugin({
      upstreams: [{ url: upstream.url }],
      subscriptions: { pollIntervalMs: 50 },
    });
    await plugin.start!(silent);
    const watch = plugin.signatureWatch;
    const ends: number[] = [];
    const rounds: PollRound[] = [];
    watch.onRound((round) => {
      rounds.push(round);
      ends.push(upstream.requestCount);
    });
    for (const sig of randomSignatures(10_000))
      watch.watch(
        sig,
        'finalized',
        () => undefined,
        () => undefined,
      );
    expect(watch.pending).to.equal(10_000);
    await waitFor(() => ends.length >= 4, 'four poll rounds', { attempts: 3000, stepMs: 10 });
    // The first round may overlap the lookups of the new signatures; later ones are pure rounds.
    for (let i = 2; i < ends.length; i++) {
      expect(rounds[i]!.signatures).to.equal(10_000);
      expect(ends[i]! - ends[i - 1]!, `round ${i}`).to.equal(Math.ceil(10_000 / 256));
    }
    expect(Math.max(...upstream.requests.map((r) => r.signatures.length))).to.equal(256);
    await plugin.stop!();
  });

  it("notifies once when the level is reached (context slot = the transaction's slot), then forgets it; lower levels first", async () => {
    const plugin = signatureStatusesPlugin({
      upstreams: [{ url: upstream.url }],
      subscriptions: { pollIntervalMs: 20 },
    });
    await plugin.start!(silent);
    const [sig] = randomSignatures(1);
    const heard: [string, SignatureNotification][] = [];
    for (const level of ['processed', 'confirmed', 'finalized'] as const) {
      plugin.signatureWatch.watch(
        sig!,
        level,
        (n) => heard.push([level, n]),
        () => undefined,
      );
    }
    upstream.statuses.set(sig!, status('confirmed', 4321, { InstructionError: [0, { Custom: 1 }] }));
    await waitFor(() => heard.length === 2, 'processed and confirmed notified', {
      attempts: 3000,
      stepMs: 10,
    });
    expect(heard.map(([l]) => l)).to.have.members(['processed', 'confirmed']);
    expect(heard[0]![1]).to.deep.equal({
      context: { apiVersion: '2.2.1', slot: 4321 },
      value: { err: { InstructionError: [0, { Custom: 1 }] } },
    });
    expect(plugin.signatureWatch.pending).to.equal(1);
    upstream.statuses.set(sig!, status('finalized', 4321, { InstructionError: [0, { Custom: 1 }] }));
    await waitFor(() => heard.length === 3, 'finalized notified', { attempts: 3000, stepMs: 10 });
    expect(plugin.signatureWatch.pending).to.equal(0);
    await plugin.stop!();
  });

  it('a subscription past its lifetime ends without a notification and frees its entry', async () => {
    const plugin = signatureStatusesPlugin({
      upstreams: [{ url: upstream.url }],
      subscriptions: { pollIntervalMs: 20, maxLifetimeMs: 1000 },
    });
    await plugin.start!(silent);
    let ended = false;
    plugin.signatureWatch.watch(
      randomSignatures(1)[0]!,
      'finalized',
      () => expect.fail('notified'),
      () => (ended = true),
    );
    expect(plugin.signatureWatch.pending).to.equal(1);
    await waitFor(() => ended, 'lifetime over', { attempts: 500, stepMs: 10 });
    expect(plugin.signatureWatch.pending).to.equal(0);
    await plugin.stop!();
  });

  it('an upstream failing keeps the subscriptions pending; they are notified once it answers', async () => {
    const plugin = signatureStatusesPlugin({
      upstreams: [{ url: upstream.url }],
      subscriptions: { pollIntervalMs: 20 },
    });
    await plugin.start!(silent);
    upstream.behaviour = { kind: 'http-500' };
    const [sig] = randomSignatures(1);
    let notified = 0;
    plugin.signatureWatch.watch(
      sig!,
      'finalized',
      () => (notified += 1),
      () => undefined,
    );
    upstream.statuses.set(sig!, status('finalized', 77));
    await waitFor(() => upstream.requestCount >= 3, 'polls while failing', { attempts: 1000, stepMs: 10 });
    expect(notified).to.equal(0);
    upstream.behaviour = { kind: 'normal' };
    await waitFor(() => notified === 1, 'notified after recovery', { attempts: 1000, stepMs: 10 });
    await plugin.stop!();
  });
});
