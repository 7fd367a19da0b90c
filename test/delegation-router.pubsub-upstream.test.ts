// What a client of the relayed accountSubscribe notices of its upstream, against the
// base-chain stand-in's websocket (real sockets on loopback; it counts subscriptions, caps
// them per socket like a provider, refuses on demand and drops its connections): equal
// subscriptions are one upstream subscription whatever members their configs carry; a
// subscribe is answered after the upstream's acknowledgement, its refusal being the
// client's error; a subscription the upstream stops serving closes the client's socket
// with a reason; notifications reach every holder as the upstream wrote them.
import { expect } from 'chai';
import type { RunningServer } from '@rollup-router/server';
import { DelegationChain } from '@rollup-router/test-support/delegation-chain';
import { newIdentity } from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';
import { startWith } from '@rollup-router/test-support/ws-server';

type Server = RunningServer & { cleanup(): void };

/** Resolves with `promise`, or with `late` once 20 s passed (a bound on a wait, not a timing check). */
const within = <T>(promise: Promise<T>, late: string): Promise<T | string> =>
  Promise.race([promise, new Promise<string>((resolve) => setTimeout(() => resolve(late), 20_000).unref())]);

describe('relayed accountSubscribe and its upstream (base-chain stand-in)', function () {
  this.timeout(60_000);
  let base: DelegationChain;
  let server: Server;
  const open: TestSocket[] = [];

  const socket = async (): Promise<TestSocket> => {
    const s = await TestSocket.open(server.websocketUrl!);
    open.push(s);
    return s;
  };
  const relay = () => server.plugins.delegation!.pubsubRelay;
  /** Sends one subscribe and returns its answer (notifications before it are skipped). */
  const subscribe = async (s: TestSocket, params: unknown, id: number): Promise<Frame> => {
    s.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'accountSubscribe', params }));
    for (;;) {
      const frame = await s.next(20_000);
      if (frame.id === id) return frame;
    }
  };
  const account = (value: { lamports: number } & Record<string, unknown>) =>
    JSON.stringify({
      data: ['', 'base64'],
      executable: false,
      owner: '11111111111111111111111111111111',
      rentEpoch: 0,
      space: 0,
      ...value,
    });

  before(async () => {
    // No pass-through: nothing of the validators is needed; every record read is "not delegated".
    base = await DelegationChain.start(undefined);
    server = await startWith({
      host: '127.0.0.1',
      routes: { routes: [] },
      delegation: {
        baseChain: { url: base.url, wsUrl: base.wsUrl },
        delegations: { follow: false },
      },
    });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    base.maxSubscriptionsPerSocket = Infinity;
    await waitFor(() => relay().size === 0, 'every relayed subscription released');
  });

  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await base?.close();
  });

  it('150 subscribes of one account, configs varied by unknown members and member order: one upstream subscription under a cap of 100; all notified', async () => {
    base.maxSubscriptionsPerSocket = 100;
    const pubkey = newIdentity();
    const configs = Array.from({ length: 150 }, (_, i) =>
      i % 3 === 0
        ? { encoding: 'base64', commitment: 'confirmed', [`unknown${i}`]: i }
        : i % 3 === 1
          ? { commitment: 'confirmed', extra: { nested: i }, encoding: 'base64' }
          : { commitment: 'confirmed', encoding: 'base64' },
    );
    const sockets = [await socket(), await socket(), await socket()];
    const ids = await Promise.all(
      sockets.map(async (s, k) => {
        const mine: number[] = [];
        for (let i = k; i < configs.length; i += sockets.length) {
          const answer = await subscribe(s, [pubkey, configs[i]], i + 1);
          expect(answer.result, JSON.stringify(answer)).to.be.a('number');
          mine.push(answer.result as number);
        }
        return mine;
      }),
    );
    expect(base.subscribeCallsOf(pubkey), 'subscribe calls upstream').to.equal(1);
    expect(base.subscriptionsOf(pubkey)).to.equal(1);
    expect(relay().upstreamSubscriptions('base-chain')).to.equal(1);

    const { slot } = base.notifyAccountText(pubkey, account({ lamports: 42 }));
    for (const [k, s] of sockets.entries()) {
      const got: number[] = [];
      while (got.length < ids[k]!.length) {
        const frame = await s.next(20_000);
        expect(frame.method).to.equal('accountNotification');
        expect((frame.params!.result as { context: { slot: number } }).context.slot).to.equal(slot);
        got.push(frame.params!.subscription);
      }
      expect(got.sort((a, b) => a - b)).to.deep.equal([...ids[k]!].sort((a, b) => a - b));
    }
  });

  it('150 subscribes of distinct accounts under a cap of 100 per upstream socket: two upstream sockets, every client served and notified', async () => {
    base.maxSubscriptionsPerSocket = 100;
    const pubkeys = Array.from({ length: 150 }, () => newIdentity());
    const sockets = [await socket(), await socket(), await socket()];
    const idOf = new Map<string, number>();
    await Promise.all(
      sockets.map(async (s, k) => {
        for (let i = k; i < pubkeys.length; i += sockets.length) {
          const answer = await subscribe(s, [pubkeys[i], { encoding: 'base64' }], i + 1);
          expect(answer.result, JSON.stringify(answer)).to.be.a('number');
          idOf.set(pubkeys[i]!, answer.result as number);
        }
      }),
    );
    expect(relay().upstreamSubscriptions('base-chain')).to.equal(150);
    expect(relay().upstreamSockets('base-chain')).to.equal(2);
    for (const pubkey of pubkeys) expect(base.subscriptionsOf(pubkey), pubkey).to.equal(1);
    for (const [k, s] of sockets.entries()) {
      const mine = pubkeys.filter((_, i) => i % sockets.length === k);
      for (const pubkey of mine) base.notifyAccountText(pubkey, account({ lamports: 1 }));
      const got = new Set<number>();
      while (got.size < mine.length) got.add((await s.next(20_000)).params!.subscription);
      expect([...got].sort((a, b) => a - b)).to.deep.equal(
        mine.map((p) => idOf.get(p)!).sort((a, b) => a - b),
      );
    }
  });

  it("a subscribe the upstream refuses is answered with the upstream's JSON-RPC error, and nothing stays held", async () => {
    const pubkey = newIdentity();
    const refusal = { code: -32602, message: 'Invalid params: this node serves no such subscription' };
    base.refuseSubscriptionsOf(pubkey, refusal);
    const [one, two] = [await socket(), await socket()];
    const answers = await Promise.all([
      subscribe(one, [pubkey, { encoding: 'base64' }], 1),
      subscribe(two, [pubkey, { encoding: 'base64', unknown: true }], 1),
    ]);
    for (const answer of answers) {
      expect(answer.result).to.equal(undefined);
      expect(answer.error).to.deep.equal(refusal);
    }
    expect(relay().size).to.equal(0);
    expect(server.rpc.subscriptions.active).to.equal(0);
    // Refused is not remembered: served again, the next subscribe is asked upstream afresh.
    base.refuseSubscriptionsOf(pubkey, undefined);
    expect((await subscribe(one, [pubkey, { encoding: 'base64' }], 2)).result).to.be.a('number');
  });

  it("a subscription the upstream refuses after a reconnect closes its clients' sockets with 1011 and the reason", async () => {
    const pubkey = newIdentity();
    const [one, two, other] = [await socket(), await socket(), await socket()];
    for (const s of [one, two])
      expect((await subscribe(s, [pubkey, { encoding: 'base64' }], 1)).result).to.be.a('number');
    const otherPubkey = newIdentity();
    expect((await subscribe(other, [otherPubkey], 1)).result).to.be.a('number');
    base.refuseSubscriptionsOf(pubkey, {
      code: -32603,
      message: 'Internal error: subscription limit reached',
    });
    base.dropSockets();
    for (const s of [one, two]) {
      const closed = await within(s.closed, 'still open');
      expect(closed).to.deep.include({ code: 1011 });
      expect((closed as { reason: string }).reason).to.match(/accountSubscribe no longer served/);
    }
    // The other account's subscription was renewed: its client is still served.
    await waitFor(() => base.subscriptionsOf(otherPubkey) === 1, 'the other subscription renewed');
    const { slot } = base.notifyAccountText(otherPubkey, account({ lamports: 7 }));
    const frame = await other.next(20_000);
    expect((frame.params!.result as { context: { slot: number } }).context.slot).to.equal(slot);
    base.refuseSubscriptionsOf(pubkey, undefined);
  });

  it('a notification with u64 lamports and rentEpoch reaches two holders byte for byte, each with its own subscription id', async () => {
    const pubkey = newIdentity();
    const [one, two] = [await socket(), await socket()];
    const ids = [
      (await subscribe(one, [pubkey, { encoding: 'base64' }], 1)).result as number,
      (await subscribe(two, [pubkey, { encoding: 'base64' }], 1)).result as number,
    ];
    // As a validator writes a real account's: u64 fields past 2^53 (JavaScript numbers would change them).
    const value =
      '{"data":["AAEC","base64"],"executable":false,"lamports":18446744073709551615,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":3}';
    const { slot } = base.notifyAccountText(pubkey, value);
    for (const [i, s] of [one, two].entries()) {
      expect(await s.nextText(20_000)).to.equal(
        `{"jsonrpc":"2.0","method":"accountNotification","params":{"result":{"context":{"slot":${slot}},"value":${value}},"subscription":${ids[i]}}}`,
      );
    }
  });
});
