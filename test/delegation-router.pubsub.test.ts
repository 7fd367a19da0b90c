// accountSubscribe and slotSubscribe through the reference server, relayed by the delegation
// router to real websockets: validator A's as the base chain (through TCP proxies that read
// what passes, so the upstream subscriptions are counted on the wire), and, for the
// delegated path, the base-chain stand-in (records of delegation) with validator B as the
// ER. Real transfers, real sockets, nothing of ours mocked.
import { expect } from 'chai';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import type { RunningServer } from '@rollup-router/server';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { validatorBIdentity } from '@rollup-router/test-support/mdp';
import { causeOf } from '@rollup-router/test-support/wire-error';
import { newIdentity } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';
import {
  fundedKeypair,
  tappedValidatorA,
  type TappedValidator,
} from '@rollup-router/test-support/tapped-validator';
import { startWith } from '@rollup-router/test-support/ws-server';

const A_WS = 'ws://127.0.0.1:17800';
const B_URL = 'http://127.0.0.1:18899';
const B_WS = 'ws://127.0.0.1:18900';
/** An account that changes every slot on any validator (the ER included), so B notifies it. */
const CLOCK = 'SysvarC1ock11111111111111111111111111111111';
const PER_CLIENT = 8;

type Server = RunningServer & { cleanup(): void };

/** Subscribes on `socket`; resolves with the subscription id. */
async function subscribe(socket: TestSocket, method: string, params?: unknown, id = 1): Promise<number> {
  let answer = await socket.call(method, params, id);
  // A validator may notify before it answers (Agave does for an account that changes every slot).
  while (answer.id !== id) answer = await socket.next();
  expect(answer.result, JSON.stringify(answer)).to.be.a('number');
  return answer.result as number;
}

/** The next notification of `method` on `socket` (answers and other notifications skipped). */
async function nextOf(socket: TestSocket, method: string, ms = 30_000): Promise<Frame> {
  for (;;) {
    const frame = await socket.next(ms);
    if (frame.method === method) return frame;
  }
}

const slotOf = (frame: Frame): number => (frame.params!.result as { context: { slot: number } }).context.slot;
const lamportsOf = (frame: Frame): number =>
  (frame.params!.result as { value: { lamports: number } }).value.lamports;

describe('accountSubscribe and slotSubscribe relayed from the base chain (validator A through a proxy)', function () {
  this.timeout(120_000);
  let server: Server | undefined;
  let validator: TappedValidator | undefined;
  let conn: Connection;
  let payer: Keypair;
  const open: TestSocket[] = [];

  const socket = async (url: string): Promise<TestSocket> => {
    const s = await TestSocket.open(url);
    open.push(s);
    return s;
  };
  /** Upstream frames of `method` naming `account` (or any, for slots). */
  const upstream = (method: string, account?: string) =>
    validator!.tap
      .sent(method)
      .filter((m) => account === undefined || (m.params as unknown[])[0] === account);

  const transferTo = async (to: string, lamports: number): Promise<void> => {
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: new PublicKey(to), lamports }),
    );
    await conn.confirmTransaction(
      await conn.sendTransaction(tx, [payer], { skipPreflight: true }),
      'confirmed',
    );
  };

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    conn = new Connection(VALIDATOR_A, 'confirmed');
    payer = await fundedKeypair(conn);
    validator = await tappedValidatorA();
    server = await startWith({
      host: '127.0.0.1',
      routes: { routes: [] },
      // The HTTP proxy's URL only: the websocket is found at port + 1, as web3.js finds it.
      delegation: { baseChain: { url: validator.url } },
      websocket: { limits: { maxSubscriptionsPerClient: PER_CLIENT } },
    });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await validator?.close();
  });

  for (const encoding of ['base64', 'jsonParsed'] as const) {
    it(`a transfer through A: the ${encoding} accountNotification equals A's own (shape, slot, value)`, async () => {
      const account = Keypair.generate().publicKey.toBase58();
      const params = [account, { encoding, commitment: 'confirmed' }];
      const ours = await socket(server!.websocketUrl!);
      const id = await subscribe(ours, 'accountSubscribe', params);
      const own = await socket(A_WS);
      await subscribe(own, 'accountSubscribe', params);
      await waitFor(() => upstream('accountSubscribe', account).length > 0, 'the upstream subscription');
      await transferTo(account, 2_000_000);
      const reference = await nextOf(own, 'accountNotification');
      const got = await nextOf(ours, 'accountNotification');
      expect(got.params!.subscription).to.equal(id);
      expect(got.params!.result).to.deep.equal(reference.params!.result);
      expect(upstream('accountSubscribe', account)[0]!.params).to.deep.equal(params);
    });
  }

  it('two clients on one account and config: one upstream subscription, both notified; the last leaving unsubscribes it', async () => {
    const account = Keypair.generate().publicKey.toBase58();
    const params = [account, { commitment: 'confirmed', encoding: 'base64' }];
    const [one, two] = [await socket(server!.websocketUrl!), await socket(server!.websocketUrl!)];
    const ids = [
      await subscribe(one, 'accountSubscribe', params),
      await subscribe(two, 'accountSubscribe', params),
    ];
    await waitFor(() => upstream('accountSubscribe', account).length > 0, 'the upstream subscription');
    await transferTo(account, 3_000_000);
    const [first, second] = [
      await nextOf(one, 'accountNotification'),
      await nextOf(two, 'accountNotification'),
    ];
    expect(first.params!.result).to.deep.equal(second.params!.result);
    expect([first.params!.subscription, second.params!.subscription]).to.deep.equal(ids);
    expect(upstream('accountSubscribe', account)).to.have.length(1);

    expect((await one.call('accountUnsubscribe', [ids[0]], 2)).result).to.equal(true);
    const unsubscribes = upstream('accountUnsubscribe').length;
    // The second client is still served: a second transfer reaches it alone.
    await transferTo(account, 1_000_000);
    // What the client must see is the new balance. A may notify the first one again, and its 50 ms slots can
    // hold both transfers' notifications (CI saw both): the slot only does not go back.
    let next = await nextOf(two, 'accountNotification');
    while (lamportsOf(next) === 3_000_000) next = await nextOf(two, 'accountNotification');
    expect(lamportsOf(next)).to.equal(4_000_000);
    expect(slotOf(next)).to.be.at.least(slotOf(second));
    expect(upstream('accountUnsubscribe')).to.have.length(unsubscribes);
    expect((await two.call('accountUnsubscribe', [ids[1]], 3)).result).to.equal(true);
    await waitFor(() => upstream('accountUnsubscribe').length > unsubscribes, 'the upstream unsubscribe');
    expect(server!.plugins.delegation!.pubsubRelay.size).to.equal(0);
  });

  it('a client that disconnects releases its upstream subscription', async () => {
    const account = Keypair.generate().publicKey.toBase58();
    const s = await TestSocket.open(server!.websocketUrl!);
    await subscribe(s, 'accountSubscribe', [account, { encoding: 'base64' }]);
    await waitFor(() => upstream('accountSubscribe', account).length > 0, 'the upstream subscription');
    const unsubscribes = upstream('accountUnsubscribe').length;
    await s.close();
    await waitFor(() => upstream('accountUnsubscribe').length > unsubscribes, 'the upstream unsubscribe');
  });

  it("A's websocket dropped and back: the relayed account subscription is subscribed again and notifies", async () => {
    const account = Keypair.generate().publicKey.toBase58();
    const params = [account, { encoding: 'base64', commitment: 'confirmed' }];
    const ours = await socket(server!.websocketUrl!);
    await subscribe(ours, 'accountSubscribe', params);
    await waitFor(() => upstream('accountSubscribe', account).length === 1, 'the upstream subscription');
    await validator!.ws.close();
    await validator!.ws.open();
    await waitFor(() => upstream('accountSubscribe', account).length === 2, 'the subscription again', {
      attempts: 1000,
    });
    const own = await socket(A_WS);
    await subscribe(own, 'accountSubscribe', params);
    await transferTo(account, 2_000_000);
    const reference = await nextOf(own, 'accountNotification');
    expect((await nextOf(ours, 'accountNotification')).params!.result).to.deep.equal(
      reference.params!.result,
    );
  });

  it("slotSubscribe: the slots notified are A's own, one upstream subscription for two clients; unsubscribe ends it upstream", async () => {
    const [one, two] = [await socket(server!.websocketUrl!), await socket(server!.websocketUrl!)];
    const own = await socket(A_WS);
    await subscribe(own, 'slotSubscribe');
    const ids = [await subscribe(one, 'slotSubscribe'), await subscribe(two, 'slotSubscribe', [])];
    const ours: Frame[] = [];
    for (let i = 0; i < 3; i++) ours.push(await nextOf(one, 'slotNotification'));
    await nextOf(two, 'slotNotification');
    expect(ours.map((f) => f.params!.subscription)).to.deep.equal([ids[0], ids[0], ids[0]]);
    const last = (ours.at(-1)!.params!.result as { slot: number }).slot;
    const theirs = new Map<number, unknown>();
    for (;;) {
      const result = (await nextOf(own, 'slotNotification')).params!.result as { slot: number };
      theirs.set(result.slot, result);
      if (result.slot >= last) break;
    }
    for (const f of ours) {
      const result = f.params!.result as { slot: number };
      if (theirs.has(result.slot)) expect(result).to.deep.equal(theirs.get(result.slot));
    }
    expect(ours.some((f) => theirs.has((f.params!.result as { slot: number }).slot))).to.equal(true);
    expect(upstream('slotSubscribe')).to.have.length(1);
    expect((await one.call('slotUnsubscribe', [ids[0]], 7)).result).to.equal(true);
    expect((await two.call('slotUnsubscribe', [ids[1]], 8)).error, 'the answer, not a notification').to.equal(
      undefined,
    );
    await waitFor(() => upstream('slotUnsubscribe').length === 1, 'the upstream slotUnsubscribe');
  });

  for (const [what, params, path] of [
    ['a pubkey that is not 32 bytes', ['3xyz'], /params\/0/],
    ['an unknown encoding', [CLOCK, { encoding: 'base32' }], /params\/1\/encoding/],
    ['an unknown commitment', [CLOCK, { commitment: 'rooted' }], /params\/1\/commitment/],
    ['a dataSlice without a length', [CLOCK, { dataSlice: { offset: 0 } }], /params\/1\/dataSlice/],
  ] as const) {
    it(`accountSubscribe of ${what} is -32602 naming the path`, async () => {
      const s = await socket(server!.websocketUrl!);
      const { error } = await s.call('accountSubscribe', params);
      expect(error?.code).to.equal(-32602);
      expect(JSON.stringify(error)).to.match(path);
    });
  }

  it('slotSubscribe with params is -32602', async () => {
    const s = await socket(server!.websocketUrl!);
    expect((await s.call('slotSubscribe', [{ commitment: 'confirmed' }])).error?.code).to.equal(-32602);
  });

  it("an unknown id to accountUnsubscribe or slotUnsubscribe is -32602 with the validator's text", async () => {
    const s = await socket(server!.websocketUrl!);
    for (const method of ['accountUnsubscribe', 'slotUnsubscribe']) {
      expect((await s.call(method, [424242])).error, method).to.deep.include({
        code: -32602,
        message: 'Invalid subscription id.',
      });
    }
  });

  it('accountSubscribe over HTTP says it is served over WebSocket only', async () => {
    const res = await fetch(server!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [CLOCK] }),
    });
    expect(JSON.stringify(await res.json())).to.match(/WebSocket only/);
  });

  it('relayed subscriptions count toward websocket.limits.maxSubscriptionsPerClient', async () => {
    await waitFor(() => server!.plugins.delegation!.pubsubRelay.size === 0, 'the earlier tests released');
    const s = await socket(server!.websocketUrl!);
    for (let i = 0; i < PER_CLIENT; i++) await subscribe(s, 'accountSubscribe', [newIdentity()], i + 1);
    const refused = await s.call('accountSubscribe', [newIdentity()], 99);
    expect(causeOf(refused.error)).to.equal(-32054);
    expect(refused.error?.data).to.deep.include({ per: 'client', limit: PER_CLIENT });
  });
});

describe('accountSubscribe of a delegated account (base-chain stand-in, validator B as the ER)', function () {
  this.timeout(120_000);
  let base: DelegationChain;
  let server: Server | undefined;
  let b: string;
  const open: TestSocket[] = [];

  const socket = async (url: string): Promise<TestSocket> => {
    const s = await TestSocket.open(url);
    open.push(s);
    return s;
  };
  const relay = () => server!.plugins.delegation!.pubsubRelay;
  /** What the base chain notifies of CLOCK (the stand-in's; A's Clock never reaches the stand-in's socket). */
  const baseChange = (lamports: number) =>
    base.notifyAccount(CLOCK, {
      data: ['', 'base64'],
      executable: false,
      lamports,
      owner: 'Sysvar1111111111111111111111111111111111111',
      rentEpoch: 0,
      space: 0,
    });

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    b = await validatorBIdentity();
    base = await DelegationChain.start(VALIDATOR_A);
    server = await startWith({
      host: '127.0.0.1',
      // B's JSON-RPC URL: its websocket is found at port + 1 (18900), as web3.js finds it.
      routes: {
        routes: [{ identity: b, fqdn: B_URL, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' }],
        allowInsecure: true,
      },
      // Reads are trusted for ten minutes: only the stand-in's notifications change them here.
      delegation: {
        baseChain: { url: base.url, wsUrl: base.wsUrl },
        delegations: { ttlMs: 600_000, followedTtlMs: 600_000 },
      },
    });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    await waitFor(() => relay().size === 0, 'released');
  });

  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await base?.close();
  });

  /**
   * Reads notifications on `ours` until `count` of them fall at slots B notified on its own
   * socket too, and checks each equals B's own. Ours that came before `own` was subscribed
   * have no counterpart and are skipped.
   */
  async function fromB(ours: TestSocket, own: TestSocket, count: number): Promise<void> {
    const theirs = new Map<number, unknown>();
    let ownSlot = -1;
    let matched = 0;
    for (let read = 0; matched < count; read++) {
      if (read > 200) throw new Error("no notification of ours at a slot of B's own");
      const frame = await nextOf(ours, 'accountNotification');
      const slot = slotOf(frame);
      // The stand-in's slots are small; B's are its own.
      if (slot <= 1000) continue;
      while (ownSlot < slot) {
        const mine = await nextOf(own, 'accountNotification');
        ownSlot = slotOf(mine);
        theirs.set(ownSlot, mine.params!.result);
      }
      if (!theirs.has(slot)) continue;
      expect(frame.params!.result).to.deep.equal(theirs.get(slot));
      matched++;
    }
  }

  it("an account delegated to B is notified from B (B's own notifications) and from the base chain too", async () => {
    await base.delegate(CLOCK, b);
    const params = [CLOCK, { encoding: 'jsonParsed', commitment: 'confirmed' }];
    const own = await socket(B_WS);
    await subscribe(own, 'accountSubscribe', params);
    const ours = await socket(server!.websocketUrl!);
    const id = await subscribe(ours, 'accountSubscribe', params);
    await fromB(ours, own, 3);
    expect(relay().upstreamSubscriptions(`er:${b}`)).to.equal(1);
    // The Rust router relays the base chain's notifications of a delegated account too.
    await waitFor(() => base.subscriptionsOf(CLOCK) > 0, 'the base-chain subscription');
    const { slot } = baseChange(4242);
    for (;;) {
      const frame = await nextOf(ours, 'accountNotification');
      if (slotOf(frame) !== slot) continue;
      expect(frame.params).to.deep.equal({
        result: {
          context: { slot },
          value: {
            data: ['', 'base64'],
            executable: false,
            lamports: 4242,
            owner: 'Sysvar1111111111111111111111111111111111111',
            rentEpoch: 0,
            space: 0,
          },
        },
        subscription: id,
      });
      break;
    }
    await base.undelegate(CLOCK);
  });

  it('an undelegation moves the subscription back to the base chain only; a delegation moves it to the ER', async () => {
    await base.delegate(CLOCK, b);
    const params = [CLOCK, { encoding: 'base64', commitment: 'confirmed' }];
    const ours = await socket(server!.websocketUrl!);
    await subscribe(ours, 'accountSubscribe', params);
    await waitFor(() => relay().upstreamSubscriptions(`er:${b}`) === 1, 'the ER subscription');
    await nextOf(ours, 'accountNotification');

    await base.undelegate(CLOCK);
    await waitFor(() => relay().upstreamSubscriptions(`er:${b}`) === 0, 'the ER subscription ended');
    expect(base.subscriptionsOf(CLOCK)).to.equal(1);
    // What was under way from B may still come; then the base chain's change does.
    const { slot } = baseChange(77);
    while (slotOf(await nextOf(ours, 'accountNotification')) !== slot);

    await base.delegate(CLOCK, b);
    await waitFor(() => relay().upstreamSubscriptions(`er:${b}`) === 1, 'the ER subscription again');
    const own = await socket(B_WS);
    await subscribe(own, 'accountSubscribe', params);
    await fromB(ours, own, 2);
    await base.undelegate(CLOCK);
  });
});
