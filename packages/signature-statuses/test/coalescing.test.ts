import { expect } from 'chai';
import { createLogger } from '@rollup-router/core';
import { signatureStatusesPlugin, type SignatureStatusesPlugin } from '../src/index.js';
import {
  randomSignature,
  randomSignatures,
  signaturesSharingKey,
  status,
} from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

const log = createLogger({ level: 'silent' });

/** The JSON-RPC error code a lookup failed with, or 'answered'. */
const outcomeOf = (lookup: Promise<unknown>): Promise<number | undefined | 'answered'> =>
  lookup.then(
    () => 'answered',
    (e: { code?: number }) => e.code,
  );

describe('signature statuses: request coalescing', () => {
  let up: SolanaStandIn;
  let plugin: SignatureStatusesPlugin;
  beforeEach(async () => {
    up = await SolanaStandIn.start(100);
    plugin = signatureStatusesPlugin({
      upstreams: [{ url: up.url }],
      upstreamTimeoutMs: 9000,
      deadlineMs: 9500,
    });
    await plugin.start!({ log });
  });
  afterEach(async () => {
    await plugin.stop!();
    await up.close();
  });

  it('100 concurrent lookups of the same unknown signature make one upstream request', async () => {
    const sig = randomSignature();
    const answers = await Promise.all(Array.from({ length: 100 }, () => plugin.lookup([sig])));
    expect(answers.map((a) => a.value)).to.deep.equal(Array.from({ length: 100 }, () => [null]));
    expect(up.requestCount).to.equal(1);
  });

  it('a lookup arriving while the request is under way joins it', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('confirmed', 60));
    const release = up.hold();
    const first = plugin.lookup([sig]);
    await waitFor(() => up.requestCount === 1, 'the first request to reach the upstream');
    const later = Array.from({ length: 99 }, () => plugin.lookup([sig]));
    release();
    const answers = await Promise.all([first, ...later]);
    expect(new Set(answers.map((a) => JSON.stringify(a.value)))).to.deep.equal(
      new Set([JSON.stringify([status('confirmed', 60)])]),
    );
    expect(up.requestCount).to.equal(1);
  });

  it('lookups of different signatures in the same turn share one request, each signature asked once', async () => {
    const sigs = randomSignatures(10);
    await Promise.all([plugin.lookup(sigs.slice(0, 6)), plugin.lookup(sigs.slice(4)), plugin.lookup(sigs)]);
    expect(up.requestCount).to.equal(1);
    expect(up.requests[0]!.signatures).to.have.members(sigs).and.have.length(10);
  });

  it('the same signature asked with and without searchTransactionHistory goes out in two requests, each once', async () => {
    const sig = randomSignature();
    await Promise.all([
      plugin.lookup([sig]),
      plugin.lookup([sig], { searchTransactionHistory: true }),
      plugin.lookup([sig]),
      plugin.lookup([sig], { searchTransactionHistory: true }),
    ]);
    expect(up.requestCount).to.equal(2);
    expect(
      up.requests.map(
        (r) =>
          (r.config as { searchTransactionHistory?: boolean } | undefined)?.searchTransactionHistory === true,
      ),
    ).to.have.members([false, true]);
    for (const r of up.requests) expect(r.signatures).to.deep.equal([sig]);
  });

  it('never sends more than 256 signatures in one upstream request', async () => {
    const sigs = randomSignatures(600);
    const answers = await Promise.all([
      plugin.lookup(sigs.slice(0, 256)),
      plugin.lookup(sigs.slice(256, 512)),
      plugin.lookup(sigs.slice(512)),
    ]);
    expect(answers.flatMap((a) => a.value)).to.have.length(600);
    expect(Math.max(...up.requests.map((r) => r.signatures.length))).to.be.at.most(256);
    expect(up.requests.flatMap((r) => r.signatures)).to.have.members(sigs);
  });

  it('a lookup spread over a request under way and two new ones gets each status in its place, repeats included', async () => {
    const sigs = randomSignatures(300);
    sigs.forEach((s, i) => up.statuses.set(s, status('confirmed', 1000 + i)));
    const release = up.hold();
    const underWay = sigs.slice(0, 10);
    const first = plugin.lookup(underWay);
    await waitFor(() => up.requestCount === 1, 'the first request to reach the upstream');
    // Joins the request under way for sigs 0-9, and needs two more for the other 290 (256 at most each).
    const asked = [sigs[299]!, ...sigs.slice(5).reverse(), ...sigs.slice(0, 5), sigs[7]!, sigs[299]!];
    const second = plugin.lookup(asked);
    await waitFor(() => up.requestCount === 3, 'the two new requests to reach the upstream');
    release();
    expect((await first).value).to.deep.equal(underWay.map((s) => up.statuses.get(s)));
    expect((await second).value).to.deep.equal(asked.map((s) => up.statuses.get(s)));
    expect(up.requests.flatMap((r) => r.signatures)).to.have.members(sigs);
  });

  it('after its deadline a lookup is not joined: the next one for the same signature asks again', async () => {
    await plugin.stop!();
    plugin = signatureStatusesPlugin({
      upstreams: [{ url: up.url }],
      upstreamTimeoutMs: 60_000,
      deadlineMs: 100,
    });
    await plugin.start!({ log });
    const sig = randomSignature();
    up.statuses.set(sig, status('finalized', 62));
    const release = up.hold();
    const expired = await outcomeOf(plugin.lookup([sig]));
    expect(expired).to.equal(-32060);
    release();
    expect((await plugin.lookup([sig])).value).to.deep.equal([status('finalized', 62)]);
    expect(up.requestCount).to.equal(2);
  });

  it('a lookup that takes over the signature of an abandoned one stays joinable once the abandoned one ends', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('finalized', 63));
    const release = up.hold();
    const leaving = new AbortController();
    const gone = outcomeOf(plugin.lookup([sig], { signal: leaving.signal }));
    await waitFor(() => up.requestCount === 1, 'the first request to reach the upstream');
    leaving.abort(); // its only caller gone: that lookup is abandoned
    const takeover = plugin.lookup([sig]);
    await waitFor(() => up.requestCount === 2, 'the new request to reach the upstream');
    expect(await gone).to.equal(-32052);
    const joining = plugin.lookup([sig]);
    release();
    expect((await takeover).value).to.deep.equal([status('finalized', 63)]);
    expect((await joining).value).to.deep.equal([status('finalized', 63)]);
    expect(up.requestCount).to.equal(2);
  });

  it('two signatures sharing a key, both under way: each is asked and answered with its own status', async () => {
    const [a, b] = signaturesSharingKey();
    up.statuses.set(a, status('confirmed', 70));
    up.statuses.set(b, status('finalized', 71));
    const release = up.hold();
    const firstA = plugin.lookup([a]);
    await waitFor(() => up.requestCount === 1, 'the request for a to reach the upstream');
    // b's key is taken by a: b goes out on its own, and so does a repeat of b; a repeat of a joins.
    const firstB = plugin.lookup([b]);
    await waitFor(() => up.requestCount === 2, 'the request for b to reach the upstream');
    const againA = plugin.lookup([a]);
    const againB = plugin.lookup([b]);
    await waitFor(() => up.requestCount === 3, 'the second request for b to reach the upstream');
    release();
    const [va, vb, va2, vb2] = (await Promise.all([firstA, firstB, againA, againB])).map((x) => x.value);
    expect([va, va2]).to.deep.equal([[status('confirmed', 70)], [status('confirmed', 70)]]);
    expect([vb, vb2]).to.deep.equal([[status('finalized', 71)], [status('finalized', 71)]]);
    expect(up.requests.map((r) => r.signatures)).to.deep.equal([[a], [b], [b]]);
  });

  it('a key is free again once the request holding it ends: the other signature then coalesces', async () => {
    // Unknown signatures: memory keeps no answer for them, so every lookup needs the upstream.
    const [a, b] = signaturesSharingKey();
    const release = up.hold();
    const held = plugin.lookup([a]);
    await waitFor(() => up.requestCount === 1, 'the request for a to reach the upstream');
    release();
    await held;
    const answers = await Promise.all([plugin.lookup([b]), plugin.lookup([b]), plugin.lookup([b])]);
    expect(answers.map((x) => x.value)).to.deep.equal([[null], [null], [null]]);
    expect(up.requests.map((r) => r.signatures)).to.deep.equal([[a], [b]]);
  });

  it('callers leave one at a time: the request goes on while one waits, each counted once', async () => {
    const [sig, other] = [randomSignature(), randomSignature()];
    up.statuses.set(sig, status('finalized', 62));
    up.statuses.set(other, status('confirmed', 63));
    const release = up.hold();
    const callers = [new AbortController(), new AbortController(), new AbortController()];
    // The first caller also asks for a second signature, in the same request.
    const first = outcomeOf(plugin.lookup([sig, other], { signal: callers[0]!.signal }));
    const second = outcomeOf(plugin.lookup([sig], { signal: callers[1]!.signal }));
    const last = plugin.lookup([sig], { signal: callers[2]!.signal });
    await waitFor(() => up.requestCount === 1, 'the request to reach the upstream');
    callers[0]!.abort();
    expect(await first).to.equal(-32052);
    callers[1]!.abort();
    expect(await second).to.equal(-32052);
    release();
    expect((await last).value).to.deep.equal([status('finalized', 62)]);
    expect(up.requestCount).to.equal(1);
  });

  it('the request is abandoned once every caller has left', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('finalized', 64));
    const release = up.hold();
    const callers = [new AbortController(), new AbortController()];
    const lookups = callers.map((c) => outcomeOf(plugin.lookup([sig], { signal: c.signal })));
    await waitFor(() => up.requestCount === 1, 'the request to reach the upstream');
    for (const c of callers) c.abort();
    expect(await Promise.all(lookups)).to.deep.equal([-32052, -32052]);
    // Abandoned: a new lookup does not join it, and asks again.
    const again = plugin.lookup([sig]);
    await waitFor(() => up.requestCount === 2, 'a second request');
    release();
    expect((await again).value).to.deep.equal([status('finalized', 64)]);
  });

  it('a caller that gives up does not cancel the request others wait for', async () => {
    const sig = randomSignature();
    up.statuses.set(sig, status('finalized', 61));
    const release = up.hold();
    const leaving = new AbortController();
    const gone = outcomeOf(plugin.lookup([sig], { signal: leaving.signal }));
    const staying = plugin.lookup([sig]);
    await waitFor(() => up.requestCount === 1, 'the request to reach the upstream');
    leaving.abort();
    expect(await gone).to.equal(-32052);
    release();
    expect((await staying).value).to.deep.equal([status('finalized', 61)]);
    expect(up.requestCount).to.equal(1);
  });
});
