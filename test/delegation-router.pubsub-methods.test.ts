// logsSubscribe, programSubscribe and the base chain's other subscriptions (rootSubscribe,
// blockSubscribe, slotsUpdatesSubscribe, voteSubscribe) through the reference server, with
// web3.js and kit unchanged, compared with validator A straight: A is the base chain, behind
// TCP proxies that read what passes, so upstream subscriptions are counted on the wire. The
// delegated case: the base-chain stand-in (records of delegation) with a recording ER.
import { expect } from 'chai';
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  type Context,
  type KeyedAccountInfo,
  type Logs,
} from '@solana/web3.js';
import { address, createSolanaRpcSubscriptions } from '@solana/kit';
import type { RunningServer } from '@rollup-router/server';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { validatorBIdentity } from '@rollup-router/test-support/mdp';
import { newIdentity, randomSignature } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { closeWeb3Socket } from '@rollup-router/test-support/web3-socket';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';
import {
  fundedKeypair,
  tappedValidatorA,
  type TappedValidator,
} from '@rollup-router/test-support/tapped-validator';
import { startWith } from '@rollup-router/test-support/ws-server';

const A_WS = 'ws://127.0.0.1:17800';
const B_URL = 'http://127.0.0.1:18899';

type Server = RunningServer & { cleanup(): void };

/** Subscribes on `socket`; resolves with the answer. */
async function answerTo(socket: TestSocket, method: string, params: unknown, id: number): Promise<Frame> {
  let answer = await socket.call(method, params, id);
  while (answer.id !== id) answer = await socket.next();
  return answer;
}

async function subscribe(socket: TestSocket, method: string, params: unknown, id = 1): Promise<number> {
  const answer = await answerTo(socket, method, params, id);
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

/** Every call of a web3.js listener, by the key `keyOf` gives it. */
function heard<T>(
  listen: (cb: (value: T, ctx: Context) => void) => number,
  keyOf: (value: T, ctx: Context) => string,
) {
  const calls = new Map<string, { value: T; ctx: Context }>();
  const id = listen((value, ctx) => void calls.set(keyOf(value, ctx), { value, ctx }));
  return { calls, id };
}

/**
 * Acts (a transaction) until one change reaches both listeners, and returns both calls of
 * it. web3.js tells nobody when its subscription is answered, so a first change may land
 * before one of them is subscribed: it is then done again.
 */
async function seenByBoth<T>(
  ours: Map<string, { value: T; ctx: Context }>,
  theirs: Map<string, { value: T; ctx: Context }>,
  act: () => Promise<unknown>,
) {
  for (let round = 0; round < 5; round++) {
    await act();
    const key = await waitFor(
      () => [...ours.keys()].find((k) => theirs.has(k)) ?? false,
      'a change both heard',
      {
        attempts: 200,
      },
    ).catch(() => undefined);
    if (key !== undefined) return [ours.get(key)!, theirs.get(key)!] as const;
  }
  throw new Error('no change reached both listeners');
}

describe('logsSubscribe, programSubscribe and the base chain subscriptions (validator A through a proxy)', function () {
  this.timeout(120_000);
  let server: Server | undefined;
  let validator: TappedValidator | undefined;
  let chainA: Connection;
  let payer: Keypair;
  const open: TestSocket[] = [];

  const socket = async (url: string): Promise<TestSocket> => {
    const s = await TestSocket.open(url);
    open.push(s);
    return s;
  };
  const upstream = (method: string) => validator!.tap.sent(method);

  const send = async (tx: Transaction, signers: Keypair[]): Promise<string> => {
    const signature = await chainA.sendTransaction(tx, signers, { skipPreflight: true });
    await chainA.confirmTransaction(signature, 'confirmed');
    return signature;
  };
  const transferTo = (to: PublicKey, lamports: number): Promise<string> =>
    send(
      new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports })),
      [payer],
    );

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    chainA = new Connection(VALIDATOR_A, 'confirmed');
    payer = await fundedKeypair(chainA);
    validator = await tappedValidatorA();
    server = await startWith({
      host: '127.0.0.1',
      routes: { routes: [] },
      delegation: { baseChain: { url: validator.url } },
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

  it("web3.js onLogs of an account: the logs and context of a transfer equal A's own", async () => {
    const ours = new Connection(server!.url, { commitment: 'confirmed', wsEndpoint: server!.websocketUrl! });
    const account = Keypair.generate().publicKey;
    const bySignature = (l: Logs) => l.signature;
    const mine = heard<Logs>((cb) => ours.onLogs(account, cb, 'confirmed'), bySignature);
    const theirs = heard<Logs>((cb) => chainA.onLogs(account, cb, 'confirmed'), bySignature);
    const [got, reference] = await seenByBoth(mine.calls, theirs.calls, () => transferTo(account, 2_000_000));
    expect(got).to.deep.equal(reference);
    expect(got.value.logs.join('\n')).to.match(/Program 11111111111111111111111111111111 success/);
    await ours.removeOnLogsListener(mine.id);
    await chainA.removeOnLogsListener(theirs.id);
    await closeWeb3Socket(ours);
    await waitFor(() => upstream('logsUnsubscribe').length > 0, 'the upstream unsubscribe');
  });

  it("kit logsNotifications of an account: the notification of a transfer equals A's own", async () => {
    const account = Keypair.generate().publicKey;
    const abort = new AbortController();
    const stream = (url: string) =>
      createSolanaRpcSubscriptions(url)
        .logsNotifications({ mentions: [address(account.toBase58())] }, { commitment: 'confirmed' })
        .subscribe({ abortSignal: abort.signal });
    const [ours, theirs] = await Promise.all([stream(server!.websocketUrl!), stream(A_WS)]);
    const first = async (s: typeof ours) => {
      for await (const n of s) return n;
      throw new Error('ended');
    };
    // kit's iterator drops what comes before it is read: both are read before the transfer.
    const firsts = Promise.all([first(ours), first(theirs)]);
    await transferTo(account, 2_000_000);
    const [got, reference] = await firsts;
    abort.abort();
    expect(got).to.deep.equal(reference);
  });

  it('web3.js onProgramAccountChange: an account created for a program is notified as A notifies it', async () => {
    const ours = new Connection(server!.url, { commitment: 'confirmed', wsEndpoint: server!.websocketUrl! });
    const program = Keypair.generate().publicKey;
    const account = Keypair.generate();
    const byChange = (a: KeyedAccountInfo, ctx: Context) => `${ctx.slot}:${a.accountInfo.lamports}`;
    const mine = heard<KeyedAccountInfo>(
      (cb) => ours.onProgramAccountChange(program, cb, 'confirmed'),
      byChange,
    );
    const theirs = heard<KeyedAccountInfo>(
      (cb) => chainA.onProgramAccountChange(program, cb, 'confirmed'),
      byChange,
    );
    const rent = await chainA.getMinimumBalanceForRentExemption(64);
    await send(
      new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: account.publicKey,
          lamports: rent,
          space: 64,
          programId: program,
        }),
      ),
      [payer, account],
    );
    // Then lamports credited to it, until a change reaches both listeners.
    const [got, reference] = await seenByBoth(mine.calls, theirs.calls, () =>
      transferTo(account.publicKey, 1_000_000),
    );
    expect(got).to.deep.equal(reference);
    expect(got.value.accountId.toBase58()).to.equal(account.publicKey.toBase58());
    expect(got.value.accountInfo.owner.toBase58()).to.equal(program.toBase58());
    await ours.removeProgramAccountChangeListener(mine.id);
    await chainA.removeProgramAccountChangeListener(theirs.id);
    await closeWeb3Socket(ours);
  });

  it('three clients logsSubscribe one account, configs differing in member order and unknown members: one upstream subscription; the last leaving ends it', async () => {
    const account = Keypair.generate().publicKey.toBase58();
    const configs = [
      { commitment: 'confirmed' },
      { commitment: 'confirmed', foo: 1 },
      { bar: [], commitment: 'confirmed' },
    ];
    const clients = await Promise.all(configs.map(() => socket(server!.websocketUrl!)));
    const before = upstream('logsSubscribe').length;
    const ids = await Promise.all(
      clients.map((c, i) => subscribe(c, 'logsSubscribe', [{ mentions: [account] }, configs[i]])),
    );
    await waitFor(() => upstream('logsSubscribe').length > before, 'the upstream subscription');
    const sent = upstream('logsSubscribe').slice(before);
    expect(sent.map((m) => m.params)).to.deep.equal([[{ mentions: [account] }, { commitment: 'confirmed' }]]);
    const signature = await transferTo(new PublicKey(account), 1_000_000);
    for (const [i, c] of clients.entries()) {
      const frame = await nextOf(c, 'logsNotification');
      expect(frame.params!.subscription).to.equal(ids[i]);
      expect((frame.params!.result as { value: { signature: string } }).value.signature).to.equal(signature);
    }
    const unsubscribes = upstream('logsUnsubscribe').length;
    for (const [i, c] of clients.slice(0, 2).entries())
      expect((await answerTo(c, 'logsUnsubscribe', [ids[i]], 10)).result).to.equal(true);
    // Two left, one holds it: still served, nothing unsubscribed upstream.
    const again = await transferTo(new PublicKey(account), 1_000_000);
    let last = await nextOf(clients[2]!, 'logsNotification');
    while ((last.params!.result as { value: { signature: string } }).value.signature !== again)
      last = await nextOf(clients[2]!, 'logsNotification');
    expect(upstream('logsUnsubscribe')).to.have.length(unsubscribes);
    expect((await answerTo(clients[2]!, 'logsUnsubscribe', [ids[2]], 11)).result).to.equal(true);
    await waitFor(() => upstream('logsUnsubscribe').length === unsubscribes + 1, 'the upstream unsubscribe');
  });

  it('logsSubscribe "all": one upstream subscription, notified from the base chain', async () => {
    const [one, two] = [await socket(server!.websocketUrl!), await socket(server!.websocketUrl!)];
    const before = upstream('logsSubscribe').length;
    await subscribe(one, 'logsSubscribe', ['all', { commitment: 'confirmed' }]);
    await subscribe(two, 'logsSubscribe', ['all', { commitment: 'confirmed' }]);
    expect(upstream('logsSubscribe').length - before).to.equal(1);
    const signature = await transferTo(Keypair.generate().publicKey, 1_000_000);
    for (const s of [one, two]) {
      let frame = await nextOf(s, 'logsNotification');
      while ((frame.params!.result as { value: { signature: string } }).value.signature !== signature)
        frame = await nextOf(s, 'logsNotification');
    }
  });

  for (const [method, params] of [
    ['rootSubscribe', []],
    ['blockSubscribe', ['all']],
    ['slotsUpdatesSubscribe', []],
    ['voteSubscribe', []],
  ] as const) {
    it(`${method}: the answer is A's own (A's error where A does not serve it), and nothing stays held`, async () => {
      const [ours, theirs] = [await socket(server!.websocketUrl!), await socket(A_WS)];
      const held = server!.plugins.delegation!.pubsubRelay.size;
      const [got, reference] = [
        await answerTo(ours, method, params, 5),
        await answerTo(theirs, method, params, 5),
      ];
      if (reference.error !== undefined) {
        expect(got.error).to.deep.equal(reference.error);
        expect(server!.plugins.delegation!.pubsubRelay.size).to.be.at.most(held);
      } else {
        expect(got.result).to.be.a('number');
      }
    });
  }

  for (const [what, method, params, path] of [
    [
      'logsSubscribe of two accounts',
      'logsSubscribe',
      [{ mentions: [newIdentity(), newIdentity()] }],
      /params\/0/,
    ],
    ['logsSubscribe of an unknown filter', 'logsSubscribe', ['some'], /params\/0/],
    ['programSubscribe of a bad program', 'programSubscribe', ['3xyz'], /params\/0/],
    [
      'programSubscribe with an unknown filter',
      'programSubscribe',
      [newIdentity(), { filters: [{ size: 3 }] }],
      /params\/1\/filters/,
    ],
    ['rootSubscribe with params', 'rootSubscribe', [{ commitment: 'confirmed' }], /params/],
  ] as const) {
    it(`${what} is -32602 naming the path`, async () => {
      const s = await socket(server!.websocketUrl!);
      const { error } = await s.call(method, params);
      expect(error?.code).to.equal(-32602);
      expect(JSON.stringify(error)).to.match(path);
    });
  }
});

describe('logsSubscribe and programSubscribe of delegated accounts (base-chain stand-in, a recording ER in front of validator B)', function () {
  this.timeout(60_000);
  let base: DelegationChain;
  let er: DelegationChain;
  let server: Server | undefined;
  let b: string;
  const open: TestSocket[] = [];
  const relay = () => server!.plugins.delegation!.pubsubRelay;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    b = await validatorBIdentity();
    base = await DelegationChain.start(VALIDATOR_A);
    er = await DelegationChain.start(B_URL, { wsAtNextPort: true });
    server = await startWith({
      host: '127.0.0.1',
      routes: {
        routes: [{ identity: b, fqdn: er.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' }],
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
  });

  after(async () => {
    await server?.shutdown(0);
    server?.cleanup();
    await base?.close();
    await er?.close();
  });

  const signatureOf = (frame: Frame): string =>
    (frame.params!.result as { value: { signature: string } }).value.signature;
  const slotOf = (frame: Frame): number =>
    (frame.params!.result as { context: { slot: number } }).context.slot;

  it('logs come from the ER while delegated and from the base chain; after the undelegation, from the base chain only', async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    const ours = await TestSocket.open(server!.websocketUrl!);
    open.push(ours);
    const id = await subscribe(ours, 'logsSubscribe', [{ mentions: [account] }, { commitment: 'confirmed' }]);
    await waitFor(() => er.logSubscriptionsOf(account) === 1, 'the ER subscription');
    expect(base.logSubscriptionsOf(account)).to.equal(1);

    const onEr = randomSignature();
    const { slot } = er.notifyLogs(account, onEr, ['Program log: on the ER']);
    const fromEr = await nextOf(ours, 'logsNotification');
    expect(fromEr.params).to.deep.equal({
      result: { context: { slot }, value: { signature: onEr, err: null, logs: ['Program log: on the ER'] } },
      subscription: id,
    });
    const commit = randomSignature();
    base.notifyLogs(account, commit, ['Program log: a commit']);
    expect(signatureOf(await nextOf(ours, 'logsNotification'))).to.equal(commit);

    await base.undelegate(account);
    await waitFor(() => er.logSubscriptionsOf(account) === 0, 'the ER subscription ended');
    expect(relay().upstreamSubscriptions(`er:${b}`)).to.equal(0);
    er.notifyLogs(account, randomSignature(), ['Program log: after the undelegation']);
    const after = randomSignature();
    const { slot: baseSlot } = base.notifyLogs(account, after, ['Program log: on the base chain']);
    const next = await nextOf(ours, 'logsNotification');
    expect([signatureOf(next), slotOf(next)]).to.deep.equal([after, baseSlot]);

    expect((await answerTo(ours, 'logsUnsubscribe', [id], 9)).result).to.equal(true);
    await waitFor(() => base.logSubscriptionsOf(account) === 0, 'the base-chain unsubscribe');
    await waitFor(() => relay().size === 0, 'released');
  });

  it("programSubscribe: the base chain's notifications, and the ER's of the program's accounts delegated to it, before and after the subscription", async () => {
    const program = newIdentity();
    const delegated = newIdentity();
    await base.delegateProgramAccount(delegated, b, program, new Uint8Array(8));
    const ours = await TestSocket.open(server!.websocketUrl!);
    open.push(ours);
    const id = await subscribe(ours, 'programSubscribe', [program, { encoding: 'base64' }]);
    await waitFor(() => er.programSubscriptionsOf(program) === 1, "the ER's programSubscribe");
    await waitFor(() => base.programSubscriptionsOf(program) === 1, "the base chain's programSubscribe");
    const pubkeyOf = (frame: Frame): string =>
      (frame.params!.result as { value: { pubkey: string } }).value.pubkey;

    // The ER's write of the delegated account is relayed, as the ER wrote it.
    const { slot } = er.notifyProgram(program, delegated, new Uint8Array(8).fill(5));
    let text = await ours.nextText(30_000);
    while (!text.includes('"programNotification"')) text = await ours.nextText(30_000);
    // As the ER wrote it: rentEpoch u64::MAX byte for byte.
    expect(text).to.include('"rentEpoch":18446744073709551615');
    expect((JSON.parse(text) as Frame).params).to.deep.equal({
      result: {
        context: { slot },
        value: {
          pubkey: delegated,
          account: {
            data: [Buffer.alloc(8, 5).toString('base64'), 'base64'],
            executable: false,
            lamports: 1_559_040,
            owner: program,
            rentEpoch: 2 ** 64,
            space: 8,
          },
        },
      },
      subscription: id,
    });
    // An account the ER writes for the program that is not delegated to it is not: its
    // word about it is not the router's to pass on. The base chain's next one arrives next.
    er.notifyProgram(program, newIdentity(), new Uint8Array(8));
    const onBase = newIdentity();
    base.notifyProgram(program, onBase, new Uint8Array(4));
    expect(pubkeyOf(await nextOf(ours, 'programNotification'))).to.equal(onBase);

    // A program with no delegated account yet: its ER is subscribed when one is delegated.
    const later = newIdentity();
    const laterAccount = newIdentity();
    const second = await subscribe(ours, 'programSubscribe', [later, { encoding: 'base64' }], 2);
    await waitFor(() => base.programSubscriptionsOf(later) === 1, "the base chain's programSubscribe");
    expect(er.programSubscriptionsOf(later)).to.equal(0);
    await base.delegateProgramAccount(laterAccount, b, later, new Uint8Array(8));
    await waitFor(
      () => er.programSubscriptionsOf(later) === 1,
      "the ER's programSubscribe after the delegation",
    );
    er.notifyProgram(later, laterAccount, new Uint8Array(8).fill(6));
    const laterFrame = await nextOf(ours, 'programNotification');
    expect([pubkeyOf(laterFrame), laterFrame.params!.subscription]).to.deep.equal([laterAccount, second]);

    for (const [sub, n] of [
      [id, 11],
      [second, 12],
    ] as const)
      expect((await answerTo(ours, 'programUnsubscribe', [sub], n)).result).to.equal(true);
    await waitFor(
      () => er.programSubscriptionsOf(program) + er.programSubscriptionsOf(later) === 0,
      'ER released',
    );
    await base.undelegate(delegated);
    await base.undelegate(laterAccount);
  });

  it('logsSubscribe "all" of a server with a delegated account goes to the base chain only', async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    const ours = await TestSocket.open(server!.websocketUrl!);
    open.push(ours);
    await subscribe(ours, 'logsSubscribe', ['all']);
    expect(relay().upstreamSubscriptions('base-chain')).to.equal(1);
    expect(relay().upstreamSubscriptions(`er:${b}`)).to.equal(0);
    await base.undelegate(account);
  });
});
