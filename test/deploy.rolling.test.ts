// The shipped stack as its users meet it (deploy.stack.ts): Debian's haproxy on the shipped
// haproxy.cfg in front of two reference servers on the shipped router config, validator A as
// the base chain (and its registry naming validator B). web3.js and ConnectionMagicRouter
// confirm through the load balancer, which publishes the WebSocket on the port + 1 where
// web3.js looks for it; a rolling stop under load loses no call (plain JSON-RPC posts and
// kit's createSolanaRpc alike), and a subscription outlives the router it was on: web3.js's by itself, kit's by the app
// subscribing again (test/support/kit-account-follower.ts, the code docs/deploy.md gives).
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import { ConnectionMagicRouter } from '@magicblock-labs/ephemeral-rollups-sdk';
import { address, createSolanaRpc, createSolanaRpcSubscriptions } from '@solana/kit';
import { followAccount } from '@rollup-router/test-support/kit-account-follower';
import { fundedKeypair } from '@rollup-router/test-support/tapped-validator';
import { closeWeb3Socket } from '@rollup-router/test-support/web3-socket';
import { CHAIN_URL, untilRouted, validatorBIdentity } from '@rollup-router/test-support/mdp';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import { skipWithout } from '@rollup-router/test-support/system-tool';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { StackBalancer, StackRouter } from './deploy.stack.js';
import { tempDir } from './server.harness.js';

const chainA = new Connection(CHAIN_URL, 'confirmed');

const transfer = (from: Keypair, to: PublicKey, lamports: number): Transaction =>
  new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));

/** One call of a lane: undefined when it was answered as it should be, else what came back instead. */
type LaneCall = (lane: number, id: number) => Promise<string | undefined>;

/** getRoutes over fetch: a JSON-RPC result with the id sent, on HTTP 200. */
const routesCall =
  (url: string): LaneCall =>
  async (lane, id) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: `${lane}-${id}`, method: 'getRoutes' });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    const reply = JSON.parse(text) as { id?: string; result?: unknown };
    return res.status === 200 && reply.id === `${lane}-${id}` && Array.isArray(reply.result)
      ? undefined
      : `${res.status} ${text}`;
  };

/** kit's getSlot (the base chain's, through the delegation router): kit throws on anything but a result. */
const kitSlotCall = (url: string): LaneCall => {
  const rpc = createSolanaRpc(url);
  return async () => {
    const slot = await rpc
      .getSlot({ commitment: 'confirmed' })
      .send({ abortSignal: AbortSignal.timeout(60_000) });
    return typeof slot === 'bigint' ? undefined : `not a slot: ${String(slot)}`;
  };
};

/**
 * Clients calling through the balancer without pause, each lane one call after another on
 * its own keep-alive connections; every answer is counted, and every one that is not a
 * JSON-RPC result is kept.
 */
class SteadyLoad {
  answered = 0;
  readonly failures: string[] = [];
  private running = true;
  private readonly lanes: Promise<void>[];

  constructor(calls: readonly LaneCall[]) {
    this.lanes = calls.map((call, lane) => this.lane(call, lane));
  }

  private async lane(call: LaneCall, lane: number): Promise<void> {
    for (let id = 0; this.running; id++) {
      try {
        const failure = await call(lane, id);
        if (failure === undefined) this.answered += 1;
        else this.failures.push(failure);
      } catch (err) {
        this.failures.push(String(err));
      }
    }
  }

  /** Resolves once `n` calls in all were answered. */
  until(n: number): Promise<true> {
    return waitFor(() => this.answered >= n, `${n} answered calls`, { attempts: 1200, stepMs: 100 });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.lanes);
  }
}

describe('deploy: the shipped HAProxy and router config with the real SDKs', function () {
  this.timeout(240_000);
  let tmp: ReturnType<typeof tempDir>;
  let redis: RedisServer | undefined;
  const routers: StackRouter[] = [];
  let balancer: StackBalancer | undefined;
  let b: string;

  before(async function () {
    skipWithout(this, 'haproxy', 'haproxy', ['-v']);
    if (!hasRedisServer()) {
      console.log('      (redis-server is not installed: skipped; apt-get install redis-server)');
      this.skip();
    }
    await skipUnlessValidatorA(this, CHAIN_URL);
    b = await validatorBIdentity();
    tmp = tempDir();
    redis = await startRedisServer();
    const routesFile = tmp.file('routes.yaml');
    // The compose file's environment, with the chain's registry as the only source of routes.
    writeFileSync(routesFile, '[]\n');
    const env = {
      ROLLUP_ROUTER_REDIS_URL: redis.url,
      ROLLUP_ROUTER_ROUTES_FILE: routesFile,
      ROLLUP_ROUTER_CHAIN_URL: CHAIN_URL,
      // Validator B registered itself on loopback, over plain HTTP.
      ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES: 'true',
      ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES: 'true',
      // As the image runs on a host of several CPUs (workers: auto): a primary and two workers per router.
      ROLLUP_ROUTER_WORKERS: '2',
    };
    for (const name of ['router-1', 'router-2']) {
      const router = await StackRouter.create(name, tmp.dir, env);
      await router.start();
      routers.push(router);
    }
    for (const r of routers)
      await waitFor(
        () => r.process.logs().filter((l) => l.msg === 'worker serving').length === 2,
        `both workers of ${r.name} serving`,
        { attempts: 600, stepMs: 100 },
      );
    // The chain source reads the registry after the start: each router lists B before the test.
    for (const r of routers) await untilRouted(`http://127.0.0.1:${r.port}/`, b);
    balancer = await StackBalancer.start(routers);
  });

  after(async () => {
    await balancer?.stop();
    for (const r of routers) await r.kill();
    await redis?.stop();
    tmp?.remove();
  });

  it('web3.js sendAndConfirmTransaction through HAProxy confirms a transfer on validator A (its WebSocket on port + 1)', async () => {
    const payer = await fundedKeypair(chainA, 1);
    const to = Keypair.generate().publicKey;
    // No wsEndpoint: web3.js derives ws://host:(port + 1) from the HTTP URL.
    const connection = new Connection(balancer!.url, 'confirmed');
    const signature = await sendAndConfirmTransaction(connection, transfer(payer, to, 1_234_567), [payer], {
      commitment: 'confirmed',
    });
    expect(await chainA.getBalance(to, 'confirmed')).to.equal(1_234_567);
    expect((await chainA.getSignatureStatus(signature)).value?.err).to.equal(null);
  });

  it('ConnectionMagicRouter sendAndConfirmTransaction through HAProxy confirms a transfer on validator A', async () => {
    const payer = await fundedKeypair(chainA, 1);
    const to = Keypair.generate().publicKey;
    const connection = new ConnectionMagicRouter(balancer!.url, { commitment: 'confirmed' });
    const signature = await connection.sendAndConfirmTransaction(transfer(payer, to, 7_654_321), [payer], {
      commitment: 'confirmed',
    });
    expect(await chainA.getBalance(to, 'confirmed')).to.equal(7_654_321);
    expect((await chainA.getSignatureStatus(signature)).value?.err).to.equal(null);
  });

  it("a rolling stop under load (SIGTERM one router, start it again, then the other) loses no call, and web3.js's and kit's subscriptions live on", async () => {
    const payer = await fundedKeypair(chainA, 2);
    const watched = Keypair.generate().publicKey;
    const seen: number[] = [];
    const subscriber = new Connection(balancer!.url, 'confirmed');
    const subscription = subscriber.onAccountChange(watched, (info) => seen.push(info.lamports), {
      commitment: 'confirmed',
    });
    // kit's subscription, kept by the app's code: what happened to it, in order.
    const kitEvents: string[] = [];
    const kitStop = new AbortController();
    const kitFollowing = followAccount(
      createSolanaRpcSubscriptions(balancer!.url.replace(/^http/, 'ws')),
      address(watched.toBase58()),
      () => kitEvents.push('notified'),
      kitStop.signal,
      (cause) => kitEvents.push(`closed ${(cause as { code?: unknown } | undefined)?.code}`),
    );
    const kitNotified = () => kitEvents.filter((e) => e === 'notified').length;
    /** Transfers to the watched account on validator A itself until both subscriptions are notified of a change. */
    const notified = async (): Promise<void> => {
      const [before, kitBefore] = [seen.length, kitNotified()];
      await waitFor(
        async () => {
          await sendAndConfirmTransaction(chainA, transfer(payer, watched, 1_000_000), [payer], {
            commitment: 'confirmed',
          });
          return waitFor(() => seen.length > before && kitNotified() > kitBefore, 'a notification', {
            attempts: 50,
            stepMs: 100,
          }).catch(() => false);
        },
        'an account notification through HAProxy, to web3.js and kit',
        { attempts: 20, stepMs: 0 },
      );
    };
    // Subscribed: a change is notified through the balancer.
    await notified();

    const load = new SteadyLoad([
      ...Array.from({ length: 4 }, () => routesCall(`${balancer!.url}/`)),
      ...Array.from({ length: 2 }, () => kitSlotCall(balancer!.url)),
    ]);
    try {
      await load.until(100);
      for (const [stopped, staying] of [routers, [...routers].reverse()] as [StackRouter, StackRouter][]) {
        // Both routers carry the load before one stops.
        await waitFor(async () => (await stopped.answered()) > 0, `${stopped.name} answering calls`, {
          attempts: 300,
          stepMs: 100,
        });
        expect(await stopped.stop(), `${stopped.name}'s exit code`).to.equal(0);
        // The socket on a stopped router was closed with 1001: web3.js reconnected through
        // HAProxy and subscribed again, kit's app subscribed again, so a change after the stop
        // is notified to both.
        await notified();
        const answered = load.answered;
        const stayingBefore = await staying.answered();
        await load.until(answered + 100);
        // The calls made since the stop were answered by the router that stayed.
        expect((await staying.answered()) - stayingBefore).to.be.greaterThan(0);
        const ups = balancer!.upCount(stopped);
        await stopped.start();
        await waitFor(() => balancer!.upCount(stopped) > ups, `haproxy sending to ${stopped.name} again`, {
          attempts: 600,
          stepMs: 100,
        });
      }
      await load.until(load.answered + 100);
    } finally {
      await load.stop();
      kitStop.abort();
      await kitFollowing;
      await subscriber.removeAccountChangeListener(subscription);
      await closeWeb3Socket(subscriber);
    }
    expect(
      load.failures.length,
      `${load.failures.length} of ${load.answered + load.failures.length} calls failed, the first: ${load.failures[0]}`,
    ).to.equal(0);
    expect(load.answered).to.be.greaterThan(400);
    // Both routers were stopped, so kit's socket was on one that stopped: closed with 1001
    // (going away), subscribed again, and notified of a transfer that landed after.
    const firstClose = kitEvents.findIndex((e) => e.startsWith('closed'));
    expect(firstClose, kitEvents.join(', ')).to.be.at.least(0);
    expect(
      kitEvents.filter((e) => e.startsWith('closed')),
      kitEvents.join(', '),
    ).to.satisfy((closes: string[]) => closes.every((e) => e === 'closed 1001'));
    expect(kitEvents.slice(firstClose + 1), kitEvents.join(', ')).to.include('notified');
  });

  it('docs/deploy.md gives kit apps the follower this test runs, as it is', () => {
    const file = readFileSync(new URL('./support/kit-account-follower.ts', import.meta.url), 'utf8');
    const code = file.slice(file.indexOf('import {'));
    const page = readFileSync(new URL('../docs/deploy.md', import.meta.url), 'utf8');
    expect(page).to.include(`\`\`\`ts\n${code}\`\`\``);
  });
});
