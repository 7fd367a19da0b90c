import { expect } from 'chai';
import { Redis } from 'ioredis';
import { JsonRpcClient } from '@rollup-router/core';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import { newIdentity } from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { DELEGATION_PROGRAM_ID, DelegationSource, delegationKey, SharedDelegations } from '../src/index.js';
import { upstreamCaller, type UpstreamCaller } from '../src/upstream/upstream-caller.js';
import { baseChainUpstream } from '../src/upstream/upstream.js';

describe('delegations shared through a real redis-server', function () {
  let redis: RedisServer;
  let chain: DelegationChain;
  let caller: UpstreamCaller;
  const clients: Redis[] = [];

  before(async function () {
    if (!hasRedisServer()) {
      console.log('      skipped: redis-server is not installed');
      this.skip();
    }
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    chain = await DelegationChain.start(undefined);
    caller = upstreamCaller(new JsonRpcClient(), 2000);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await caller.close();
    await chain.close();
  });

  /** One router instance: its own source, its own Redis connection. */
  async function instance(
    options: { ttlMs?: number; follow?: boolean } = {},
  ): Promise<{ source: DelegationSource; client: Redis }> {
    const ttlMs = options.ttlMs ?? 60_000;
    const client = new Redis(redis.url, { keyPrefix: 'test:' });
    clients.push(client);
    await waitFor(() => client.status === 'ready', 'redis ready');
    const source = new DelegationSource(
      {
        baseChain: baseChainUpstream(chain.url),
        programId: DELEGATION_PROGRAM_ID,
        commitment: 'confirmed',
        maxEntries: 100,
        ttlMs,
        follow: options.follow ? { wsUrl: chain.wsUrl, ttlMs: 60_000, max: 100 } : undefined,
        shared: new SharedDelegations(client, ttlMs),
      },
      caller,
      () => undefined,
    );
    return { source, client };
  }

  it('what one instance read, another takes from Redis instead of the base chain', async () => {
    const [account, plain, er] = [newIdentity(), newIdentity(), newIdentity()];
    await chain.delegate(account, er);
    const one = await instance();
    const two = await instance();
    const first = await one.source.recordsOf([account, plain]);
    expect(chain.multipleAccountsSizes).to.deep.equal([2]);
    await waitFor(async () => (await one.client.exists(delegationKey(account))) === 1, 'the read shared');
    await waitFor(async () => (await one.client.exists(delegationKey(plain))) === 1, 'the absence shared');
    expect(await two.source.recordsOf([account, plain])).to.deep.equal(first);
    expect(chain.multipleAccountsSizes).to.deep.equal([2]);
  });

  it('a value in Redis that does not match the schema is a miss', async () => {
    const [account, er] = [newIdentity(), newIdentity()];
    await chain.delegate(account, er);
    const one = await instance();
    await one.client.set(
      delegationKey(account),
      '{"record":{"authority":"nope"},"slot":"1","until":99999999999999}',
    );
    expect(await one.source.recordOf(account)).to.include({ authority: er });
    expect(chain.multipleAccountsSizes).to.deep.equal([1]);
  });

  /** A value anyone who can write to Redis could put there: schema-valid, pinned far into the future. */
  const forged = (authority: string): string =>
    JSON.stringify({
      record: {
        authority,
        owner: '11111111111111111111111111111111',
        delegationSlot: '1',
        lamports: '1',
        commitFrequencyMs: '1',
      },
      slot: '999999999999999',
      until: Date.now() + 10 * 365 * 24 * 3600 * 1000,
    });

  it("a forged value in Redis is trusted at most ttlMs from this instance's read, whatever its until says", async () => {
    const [account, forger] = [newIdentity(), newIdentity()];
    const one = await instance({ ttlMs: 200 });
    await one.client.set(delegationKey(account), forged(forger));
    expect(await one.source.recordOf(account)).to.include({ authority: forger });
    // Only the base chain's own read ends it: the forger's value must not be read back in.
    await one.client.del(delegationKey(account));
    await waitFor(async () => (await one.source.recordOf(account)) === null, 'the base chain read again');
    expect(chain.multipleAccountsSizes).to.deep.equal([1]);
  });

  it("a forged value in Redis never outranks this instance's own notification, whatever its slot says", async () => {
    const [account, forger] = [newIdentity(), newIdentity()];
    const one = await instance({ ttlMs: 60_000, follow: true });
    await one.client.set(delegationKey(account), forged(forger));
    expect(await one.source.recordOf(account)).to.include({ authority: forger });
    await waitFor(() => chain.subscriptionCount === 1, 'its record followed');
    // The chain says the record is closed (its own slot is far below the forged one).
    await chain.undelegate(account);
    await waitFor(async () => (await one.source.recordOf(account)) === null, 'the notification taken');
    one.source.stop();
  });
});
