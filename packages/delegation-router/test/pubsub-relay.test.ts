import { expect } from 'chai';
import { JsonRpcClient } from '@rollup-router/core';
import { memoryLog } from '@rollup-router/test-support/http';
import { newIdentity } from '@rollup-router/test-support/solana';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { DelegationSource, DELEGATION_PROGRAM_ID } from '../src/index.js';
import { ProgramErLookup } from '../src/delegation/program-ers.js';
import { Routing } from '../src/routing.js';
import { PubsubRelay } from '../src/subscriptions/pubsub-relay.js';
import { ErDirectory } from '../src/upstream/er-directory.js';
import { upstreamCaller, type UpstreamCaller } from '../src/upstream/upstream-caller.js';
import { baseChainUpstream } from '../src/upstream/upstream.js';

const UNKNOWN_ER = 'account delegated to an ER routing may not use';

describe('pubsub relay (a base-chain stand-in on loopback, an empty route table)', () => {
  let chain: DelegationChain;
  let caller: UpstreamCaller;
  let source: DelegationSource;
  let relay: PubsubRelay;
  let logs: ReturnType<typeof memoryLog>;
  const warnedOf = (identity: string): number =>
    logs.lines.filter((l) => l.identity === identity && String(l.msg).startsWith(UNKNOWN_ER)).length;

  beforeEach(async () => {
    logs = memoryLog('warn');
    chain = await DelegationChain.start(undefined);
    caller = upstreamCaller(new JsonRpcClient(), 2000);
    const baseChain = baseChainUpstream(chain.url);
    source = new DelegationSource(
      {
        baseChain,
        programId: DELEGATION_PROGRAM_ID,
        commitment: 'confirmed',
        maxEntries: 1000,
        ttlMs: 60_000,
        follow: { wsUrl: chain.wsUrl, ttlMs: 60_000, max: 1000 },
      },
      caller,
      () => logs.log,
    );
    const routing = new Routing(source, new ErDirectory({ nodes: () => [] }, {}), baseChain);
    // A cap of 0: no program's records are read (this relay holds account subscriptions only).
    const programs = new ProgramErLookup(caller, baseChain, DELEGATION_PROGRAM_ID, 'confirmed', 0);
    relay = new PubsubRelay(
      routing,
      programs,
      {
        baseWsUrl: chain.wsUrl,
        programId: DELEGATION_PROGRAM_ID,
        pingIntervalMs: 10_000,
        reconnectMaxDelayMs: 1000,
        handshakeTimeoutMs: 2000,
        subscriptionsPerSocket: 100,
        maxUnknownErs: 2,
      },
      () => logs.log,
    );
  });
  afterEach(async () => {
    relay.stop();
    source.stop();
    await caller.close();
    await chain.close();
  });

  /** A client's accountSubscribe of `account`, relayed; resolves with what ends it. */
  const subscribe = (account: string): Promise<() => void> =>
    relay.hold(
      {
        key: `account:${account}`,
        follows: { account },
        subscription: {
          subscribe: 'accountSubscribe',
          unsubscribe: 'accountUnsubscribe',
          notification: 'accountNotification',
          params: [account, { encoding: 'base64', commitment: 'confirmed' }],
        },
        notified: 'context',
      },
      { deliver: () => undefined, lose: () => undefined },
      new AbortController().signal,
    );

  /**
   * Until the relay has placed `account`'s subscription: its read is the relay's own (one read
   * per account at a time), whose continuations run before ours, then every microtask drains.
   */
  const placed = async (account: string): Promise<void> => {
    await source.recordOf(account);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };

  it('remembers at most maxUnknownErs ERs it may not use: each warned of once while remembered, an evicted one again', async () => {
    const ers = [newIdentity(), newIdentity(), newIdentity()];
    const accounts = [newIdentity(), newIdentity(), newIdentity()];
    for (const [i, account] of accounts.entries()) await chain.delegate(account, ers[i]!);
    const [first, second, third] = ers as [string, string, string];

    // One after the other: the order they are remembered in decides which one the third evicts.
    const ends = [await subscribe(accounts[0]!)];
    await waitFor(() => warnedOf(first) === 1, 'a warning for the first');
    ends.push(await subscribe(accounts[1]!));
    await waitFor(() => warnedOf(second) === 1, 'a warning for the second');
    // The same ER again, while remembered: no second warning.
    ends.push(await subscribe(newIdentity()));
    const again = newIdentity();
    await chain.delegate(again, first);
    ends.push(await subscribe(again));
    await placed(again);
    expect(relay.unknownErsRemembered).to.equal(2);
    // Past the bound: the third is warned of and remembered, the least recent one forgotten.
    ends.push(await subscribe(accounts[2]!));
    await waitFor(() => warnedOf(third) === 1, 'a warning for the third');
    expect(relay.unknownErsRemembered).to.equal(2);
    expect(warnedOf(first)).to.equal(1);
    // One still remembered is not warned of again; the forgotten one is.
    for (const end of ends.splice(0)) end();
    const [toSecond, toFirst] = [newIdentity(), newIdentity()];
    await chain.delegate(toSecond, second);
    await chain.delegate(toFirst, first);
    ends.push(await subscribe(toSecond));
    await placed(toSecond);
    ends.push(await subscribe(toFirst));
    await waitFor(() => warnedOf(first) === 2, 'the forgotten one warned of again');
    expect(warnedOf(second)).to.equal(1);
    expect(relay.unknownErsRemembered).to.equal(2);
    for (const end of ends) end();
  });
});
