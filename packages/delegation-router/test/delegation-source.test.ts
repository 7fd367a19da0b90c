import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { WebSocketServer } from 'ws';
import { expect } from 'chai';
import { pino } from 'pino';
import { JsonRpcClient } from '@rollup-router/core';
import { newIdentity } from '@rollup-router/test-support/solana';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { UpgradeRecorder } from '@rollup-router/test-support/upgrade-recorder';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { DelegationSource, DELEGATION_PROGRAM_ID } from '../src/index.js';
import { upstreamCaller, type UpstreamCaller } from '../src/upstream/upstream-caller.js';
import { baseChainUpstream } from '../src/upstream/upstream.js';

describe('delegation source (a base-chain stand-in on loopback)', () => {
  let chain: DelegationChain;
  let caller: UpstreamCaller;
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  const sourceOf = (ttlMs = 60_000) =>
    new DelegationSource(
      {
        baseChain: baseChainUpstream(chain.url),
        programId: DELEGATION_PROGRAM_ID,
        commitment: 'confirmed',
        maxEntries: 1000,
        ttlMs,
      },
      caller,
      () => log,
    );

  /** A source that follows records on `wsUrl`, read records trusted for a minute. */
  const followingSource = (wsUrl: string, max = 1000, baseUrl = chain.url) =>
    new DelegationSource(
      {
        baseChain: baseChainUpstream(baseUrl),
        programId: DELEGATION_PROGRAM_ID,
        commitment: 'confirmed',
        maxEntries: 1000,
        ttlMs: 60_000,
        follow: { wsUrl, ttlMs: 60_000, max },
      },
      caller,
      () => log,
    );

  beforeEach(async () => {
    chain = await DelegationChain.start(undefined);
    caller = upstreamCaller(new JsonRpcClient(), 2000);
    lines.length = 0;
  });
  afterEach(async () => {
    await caller.close();
    await chain.close();
  });

  it('reads the record an account has, and null for one it has not', async () => {
    const [delegated, plain, er] = [newIdentity(), newIdentity(), newIdentity()];
    await chain.delegate(delegated, er);
    const [record, none] = await sourceOf().recordsOf([delegated, plain]);
    expect(record).to.include({ authority: er, delegationSlot: 42n, lamports: 1_000_000n });
    expect(none).to.equal(null);
  });

  it('reads the misses of concurrent lookups with one getMultipleAccounts, and caches them', async () => {
    const source = sourceOf();
    const accounts = Array.from({ length: 30 }, newIdentity);
    await Promise.all(accounts.map((a) => source.recordOf(a)));
    expect(chain.multipleAccountsSizes).to.deep.equal([30]);
    await source.recordsOf(accounts);
    expect(chain.multipleAccountsSizes).to.deep.equal([30]);
  });

  it('asks at most 100 keys per read, and a key asked twice at once only once', async () => {
    const source = sourceOf();
    const accounts = Array.from({ length: 150 }, newIdentity);
    await Promise.all([source.recordsOf(accounts), source.recordsOf(accounts.slice(0, 10))]);
    expect(chain.multipleAccountsSizes.sort()).to.deep.equal([100, 50].sort());
  });

  it('counts an unreadable record as not delegated, and logs it once', async () => {
    const account = newIdentity();
    await chain.put(account, new Uint8Array(40));
    const source = sourceOf(1);
    expect(await source.recordOf(account)).to.equal(null);
    source.clear();
    expect(await source.recordOf(account)).to.equal(null);
    const warnings = lines.filter((l) => String(l.msg).includes('unreadable'));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ account });
    expect(String(warnings[0]!.reason)).to.match(/40 bytes/);
  });

  it('counts a record account not owned by the program as not delegated', async () => {
    const account = newIdentity();
    await chain.put(account, new Uint8Array(96), '11111111111111111111111111111111');
    expect(await sourceOf().recordOf(account)).to.equal(null);
  });

  it('sees an undelegation once the cached read expires', async () => {
    const [account, er] = [newIdentity(), newIdentity()];
    await chain.delegate(account, er);
    const source = sourceOf(50);
    expect(await source.recordOf(account)).to.not.equal(null);
    await chain.undelegate(account);
    await new Promise((r) => setTimeout(r, 80));
    expect(await source.recordOf(account)).to.equal(null);
  });

  it('reads unfollowed, without trying again at once, when the websocket never confirms a subscription', async () => {
    const silent = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(silent, 'listening');
    const subscribes: unknown[] = [];
    silent.on('connection', (socket) => socket.on('message', (m) => subscribes.push(JSON.parse(String(m)))));
    try {
      const source = followingSource(`ws://127.0.0.1:${(silent.address() as AddressInfo).port}`);
      const [account, other, er] = [newIdentity(), newIdentity(), newIdentity()];
      await chain.delegate(account, er);
      await chain.delegate(other, er);
      expect(await source.recordOf(account)).to.include({ authority: er });
      await waitFor(() => subscribes.length === 1, 'its record subscribed');
      // Not confirmed in time: given up on, and not tried again at once for the next delegated account.
      await waitFor(() => source.followed === 0, 'the subscription given up');
      expect(await source.recordOf(other)).to.include({ authority: er });
      expect(subscribes.map((s) => (s as { method: string }).method)).to.deep.equal(['accountSubscribe']);
      source.stop();
    } finally {
      for (const c of silent.clients) c.terminate();
      silent.close();
    }
  });

  it('follows the accounts found delegated, and none of the accounts found not delegated', async () => {
    const source = followingSource(chain.wsUrl);
    const [delegated, er] = [newIdentity(), newIdentity()];
    await chain.delegate(delegated, er);
    // 5 calls of 100 fresh keys each: reads, not 500 base-chain subscriptions.
    for (let call = 0; call < 5; call++) {
      expect(await source.recordsOf(Array.from({ length: 100 }, newIdentity))).to.have.length(100);
    }
    expect(chain.subscriptionCount).to.equal(0);
    expect(await source.recordOf(delegated)).to.include({ authority: er });
    await waitFor(() => chain.subscriptionCount === 1, 'the delegated record followed');
    // Followed: its undelegation changes the answer at once, long before the 60 s TTL.
    await chain.undelegate(delegated);
    await waitFor(async () => (await source.recordOf(delegated)) === null, 'the undelegation seen');
    source.stop();
  });

  it('follows no record when the read fails, and at most maxFollowed', async () => {
    const source = followingSource(chain.wsUrl, 2);
    const ers = Array.from({ length: 4 }, newIdentity);
    const accounts = Array.from({ length: 4 }, newIdentity);
    for (let i = 0; i < 4; i++) await chain.delegate(accounts[i]!, ers[i]!);
    // The base chain's HTTP side does not answer, its websocket does: nothing may stay subscribed.
    const failing = followingSource(chain.wsUrl, 1000, 'http://127.0.0.1:1');
    expect(
      await Promise.resolve(failing.recordsOf(accounts)).catch((e: { code: number }) => e.code),
    ).to.equal(-32071);
    expect(failing.followed).to.equal(0);
    expect(chain.subscriptionCount).to.equal(0);
    failing.stop();
    await source.recordsOf(accounts);
    await waitFor(() => chain.subscriptionCount === 2, 'two records followed');
    expect(source.followed).to.equal(2);
    expect(lines.some((l) => String(l.msg).includes('maxFollowed'))).to.equal(true);
    source.stop();
  });

  it("a clean close (1000) of the base chain's websocket: followed records are read again, so a change in the gap is seen", async () => {
    const source = followingSource(chain.wsUrl);
    try {
      const [gone, stays, er] = [newIdentity(), newIdentity(), newIdentity()];
      const gonePda = await chain.delegate(gone, er);
      const staysPda = await chain.delegate(stays, er);
      await source.recordsOf([gone, stays]);
      await waitFor(
        () => chain.subscriptionsOf(gonePda) + chain.subscriptionsOf(staysPda) === 2,
        'both followed',
      );
      chain.closeSockets();
      await waitFor(() => chain.subscriptionCount === 0, 'the socket closed');
      // Undelegated while no socket is open: nothing notifies it.
      await chain.undelegate(gone);
      await waitFor(async () => (await source.recordOf(gone)) === null, 'the undelegation seen');
      // The one still delegated is read again and followed again (on the socket reconnected).
      expect(await source.recordOf(stays)).to.include({ authority: er });
      await waitFor(() => chain.subscriptionsOf(staysPda) === 1, 'followed again', { attempts: 1000 });
    } finally {
      source.stop();
    }
  });

  it('credentials in the websocket URL go as Basic authorization on the upgrade, never in the URL', async () => {
    const recorder = await UpgradeRecorder.start();
    const source = followingSource(`ws://reader:s3cret%20pass@127.0.0.1:${recorder.port}/feed`);
    try {
      const [account, er] = [newIdentity(), newIdentity()];
      await chain.delegate(account, er);
      await source.recordsOf([account]);
      const upgrade = await waitFor(() => recorder.upgrades[0], 'the upgrade');
      expect(upgrade).to.deep.equal({
        url: '/feed',
        authorization: `Basic ${Buffer.from('reader:s3cret pass').toString('base64')}`,
      });
    } finally {
      source.stop();
      await recorder.close();
    }
  });

  it('fails the lookup with -32071 naming the base chain when it does not answer', async () => {
    await chain.close();
    const err = await sourceOf()
      .recordOf(newIdentity())
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.include({ code: -32071 });
    // Named, never located: a client does not learn where the base chain lives.
    expect((err as { data: unknown }).data).to.deep.equal({ upstream: 'base-chain', kind: 'unreachable' });
  });
});
