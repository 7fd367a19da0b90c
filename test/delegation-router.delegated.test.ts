// The delegated path, through the built server: the offline peers have no delegation
// program, so the base chain is a stand-in on loopback that holds delegation records
// (bytes per the program's layout) and passes everything else to validator A. Validator B
// is the ER, behind a recording pass-through so that the test sees what reached it.
import { causeOf } from '@rollup-router/test-support/wire-error';
import { expect } from 'chai';
import {
  AddressLookupTableAccount,
  Connection as Web3Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { newIdentity } from '@rollup-router/test-support/solana';
import { validatorBIdentity } from '@rollup-router/test-support/mdp';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { closedPortUrl } from '@rollup-router/test-support/reusable-port';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import { post, rpcCall, type RpcReply } from '@rollup-router/test-support/http';
import { randomSignature } from '@rollup-router/test-support/solana';
import { getBase58Decoder } from '@solana/kit';
import { serveWith, tempDir, type ServerProcess } from './server.harness.js';

const B_URL = 'http://127.0.0.1:18899';
const base58Text = getBase58Decoder();
const bs58 = (bytes: Uint8Array): string => base58Text.decode(bytes);
const chainA = new Web3Connection(VALIDATOR_A, 'confirmed');

describe('delegation router: the delegated path (base-chain stand-in, validator B as the ER)', function () {
  this.timeout(60_000);
  let base: DelegationChain;
  let er: DelegationChain;
  /** A second ER, a pass-through to validator A: one that takes transactions, which B does not. */
  let erA: DelegationChain;
  const erAIdentity = newIdentity();
  /** An ER the route table lists at a port nothing listens on. */
  const downIdentity = newIdentity();
  let server: ServerProcess;
  let dir: ReturnType<typeof tempDir>;
  let b: string;
  let payer: Keypair;

  const call = (method: string, params: unknown): Promise<RpcReply> => rpcCall(server.base, method, params);

  /** A signed legacy transfer from the payer to `to`, with a blockhash of A (base64 wire). */
  const transferTo = async (to: string, extraWritable: string[] = []): Promise<string> => {
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: new Keypair().publicKey,
        lamports: 1_000_000,
      }),
    );
    tx.instructions[0]!.keys.push(
      ...[to, ...extraWritable].map((k) => ({
        pubkey: new PublicKey(k),
        isSigner: false,
        isWritable: true,
      })),
    );
    tx.recentBlockhash = (await chainA.getLatestBlockhash()).blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    return tx.serialize().toString('base64');
  };

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    b = await validatorBIdentity();
    base = await DelegationChain.start(VALIDATOR_A);
    er = await DelegationChain.start(B_URL);
    erA = await DelegationChain.start(VALIDATOR_A);
    const downUrl = await closedPortUrl();
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: {
        routes: [
          { identity: b, fqdn: er.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
          { identity: erAIdentity, fqdn: erA.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
          { identity: downIdentity, fqdn: downUrl, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
        ],
        allowInsecure: true,
      },
      // Reads are trusted for ten minutes: only accountSubscribe notifications can change them in a test.
      delegation: {
        baseChain: { url: base.url, wsUrl: base.wsUrl },
        delegations: { ttlMs: 600_000, followedTtlMs: 600_000 },
        programAccounts: { maxDelegated: 3 },
        // Long enough that twenty calls sent at once arrive within one blockhash's age even on a
        // loaded machine (at the default 400 ms a CI run saw two reads), short enough that a
        // blockhash handed out is far from its 150 slots.
        blockhashMaxAgeMs: 2_000,
      },
      // The second ER is trusted for statuses (listed): what was sent to it is asked of it first.
      // Its websocket is the stand-in's, which refuses signatureSubscribe: subscriptions are polled.
      statuses: { store: false, upstreams: [{ url: erA.url, name: 'er-a', wsUrl: erA.wsUrl }] },
      websocket: { port: false }, // the upgrade on the HTTP port
    });
    payer = Keypair.generate();
    await chainA.confirmTransaction(
      await chainA.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL),
      'confirmed',
    );
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    await base?.close();
    await er?.close();
    await erA?.close();
  });

  it('getDelegationStatus of a delegated account names its ER and its record', async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    expect(await call('getDelegationStatus', [account])).to.deep.include({
      result: {
        isDelegated: true,
        fqdn: er.url,
        delegationRecord: {
          authority: b,
          owner: '11111111111111111111111111111111',
          delegationSlot: 42,
          lamports: 1_000_000,
        },
      },
    });
  });

  it("getBlockhashForAccounts of a delegated account is the ER's", async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    const { result } = await call('getBlockhashForAccounts', [[payer.publicKey.toBase58(), account]]);
    const fromB = er.passedThrough.get('getLatestBlockhash') as { result: { value: { blockhash: string } } };
    const { blockhash } = result as { blockhash: string };
    expect(blockhash).to.equal(fromB.result.value.blockhash);
    // isBlockhashValid asks the chain that handed the blockhash out.
    const valid = await call('isBlockhashValid', [blockhash, { commitment: 'confirmed' }]);
    expect(valid.result).to.deep.equal((er.passedThrough.get('isBlockhashValid') as RpcReply).result);
    expect(base.methods).to.not.include('isBlockhashValid');
  });

  it('concurrent getBlockhashForAccounts calls share one getLatestBlockhash of the chain (blockhashMaxAgeMs)', async () => {
    const reads = () => base.methods.filter((m) => m === 'getLatestBlockhash').length;
    const before = reads();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call('getBlockhashForAccounts', [[]])),
    );
    // At most one read: none when one of the last blockhashMaxAgeMs is still fresh.
    expect(reads() - before).to.be.at.most(1);
    const hashes = new Set(answers.map((a) => (a.result as { blockhash: string }).blockhash));
    expect(hashes.size).to.equal(1);
  });

  // B is a real MagicBlock ER: it refuses the payer, which it cannot clone as writable
  // (UnclonableAccountUsedAsWritableInEphemeral), and that error of its own must come back.
  it("a transaction writing a delegated account goes to the ER; B's answer comes back unchanged", async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    const reply = await call('sendTransaction', [await transferTo(account), { encoding: 'base64' }]);
    expect(base.methods).to.not.include('sendTransaction');
    const fromB = er.passedThrough.get('sendTransaction') as RpcReply;
    expect(fromB, 'B received the transaction').to.not.equal(undefined);
    expect(reply.result).to.deep.equal(fromB.result);
    expect(reply.error).to.deep.equal(fromB.error);
  });

  it('a transaction sent to an ER: its subscription, its status and getTransaction ask that ER first; getTransaction then the base chain when the ER has it no more', async () => {
    const statusesAsked = (chain: DelegationChain) =>
      chain.methods.filter((m) => m === 'getSignatureStatuses').length;
    const [ofEr, ofBase] = [statusesAsked(erA), statusesAsked(base)];
    const account = newIdentity();
    await base.delegate(account, erAIdentity);
    const sent = await call('sendTransaction', [await transferTo(account), { encoding: 'base64' }]);
    expect(sent, JSON.stringify(sent)).to.have.property('result').that.is.a('string');
    expect(erA.methods).to.include('sendTransaction');
    const signature = sent.result as string;
    // Subscribed at once, as the SDKs do: the ER's websocket refuses, so the ER is polled.
    const socket = await TestSocket.open(server.base.replace('http', 'ws'));
    try {
      const subscribed = await socket.call('signatureSubscribe', [signature, { commitment: 'confirmed' }]);
      expect(subscribed.result, JSON.stringify(subscribed)).to.be.a('number');
      const notified = await socket.next(10_000);
      expect(notified.method).to.equal('signatureNotification');
      expect((notified.params as { result: { value: unknown } }).result.value).to.deep.equal({ err: null });
    } finally {
      await socket.close();
    }
    expect(statusesAsked(erA)).to.be.above(ofEr);
    const { result } = await call('getSignatureStatuses', [[signature]]);
    expect((result as { value: ({ confirmationStatus: string } | null)[] }).value[0]).to.not.equal(null);
    expect(statusesAsked(base), 'the base chain was never asked for its status').to.equal(ofBase);
    const params = [signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }];
    const asked = () => base.methods.filter((m) => m === 'getTransaction').length;
    const fromEr = await call('getTransaction', params);
    expect((fromEr.result as { slot: number } | null)?.slot).to.be.a('number');
    expect(fromEr.result).to.deep.equal((erA.passedThrough.get('getTransaction') as RpcReply).result);
    expect(asked(), 'the ER had it: the base chain was not asked').to.equal(0);
    // The ER forgets it (an ER keeps a short ledger): the base chain's answer comes back.
    erA.fixedResults.set('getTransaction', null);
    const fromBase = await call('getTransaction', params);
    expect(asked()).to.equal(1);
    expect(fromBase.result).to.deep.equal((base.passedThrough.get('getTransaction') as RpcReply).result);
    expect((fromBase.result as { transaction: unknown }).transaction).to.deep.equal(
      (fromEr.result as { transaction: unknown }).transaction,
    );
  });

  it('a transaction writing no delegated account goes to the base chain, which then answers its status', async () => {
    const reply = await call('sendTransaction', [await transferTo(newIdentity()), { encoding: 'base64' }]);
    expect(reply, JSON.stringify(reply)).to.have.property('result').that.is.a('string');
    expect(base.methods).to.include('sendTransaction');
    // No statuses upstream is configured: the base chain the transaction went to is one (named base-chain).
    await waitFor(async () => {
      const { result } = await call('getSignatureStatuses', [[reply.result]]);
      return (result as { value: unknown[] }).value[0] !== null;
    }, 'the status from the base chain');
    expect(base.methods).to.include('getSignatureStatuses');
  });

  it('getBalance and getMultipleAccounts ask each account of the chain that holds it, in request order', async () => {
    const delegated = newIdentity();
    await base.delegate(delegated, b);
    const balance = await call('getBalance', [delegated]);
    expect(balance.result).to.deep.equal((er.passedThrough.get('getBalance') as RpcReply).result);
    expect(balance.error).to.deep.equal((er.passedThrough.get('getBalance') as RpcReply).error);
    const keys = [payer.publicKey.toBase58(), delegated];
    const { result } = await call('getMultipleAccounts', [keys, { encoding: 'base64' }]);
    const fromB = er.passedThrough.get('getMultipleAccounts') as { result: { value: unknown[] } };
    const fromA = (await chainA.getAccountInfo(payer.publicKey))!;
    const [first, second] = (result as { value: { lamports: number }[] }).value;
    expect(first!.lamports).to.equal(fromA.lamports);
    expect(second).to.deep.equal(fromB.result.value[0]);
  });

  it('accounts delegated to different ERs are refused, naming them', async () => {
    const [x, y, other] = [newIdentity(), newIdentity(), newIdentity()];
    await base.delegate(x, b);
    await base.delegate(y, other);
    const reply = await call('sendTransaction', [await transferTo(x, [y]), { encoding: 'base64' }]);
    expect(reply.error).to.deep.equal({
      code: -32603,
      message: 'transaction contains accounts that were delegated to different ER nodes',
      data: { code: -32072, delegatedTo: { [b]: [x], [other]: [y] } },
    });
  });

  it('an account delegated to an ER the route table does not list is -32070, naming it', async () => {
    const [account, unknown] = [newIdentity(), newIdentity()];
    await base.delegate(account, unknown);
    expect((await call('getDelegationStatus', [account])).error).to.deep.equal({
      code: -32603,
      message: `account has been delegated to unknown ER node: ${unknown}`,
      data: { code: -32070, identity: unknown, reason: 'not_listed' },
    });
  });

  it('a delegation of an account a client subscribes to is notified on the base chain and moves routing to the ER within 2 s', async () => {
    const account = newIdentity();
    const followed = base.subscriptionCount;
    expect((await call('getDelegationStatus', [account])).result).to.deep.equal({ isDelegated: false });
    // Found not delegated: its record is not followed (a delegation is seen when the read expires).
    expect(base.subscriptionCount).to.equal(followed);
    const socket = await TestSocket.open(server.base.replace('http', 'ws'));
    try {
      expect((await socket.call('accountSubscribe', [account, { encoding: 'base64' }])).result).to.be.a(
        'number',
      );
      await waitFor(() => base.subscriptionsOf(account) > 0, 'the account relayed');
      await waitFor(() => base.subscriptionCount > followed + 1, 'its record followed');
      await base.delegate(account, b);
      await waitFor(
        async () =>
          ((await call('getDelegationStatus', [account])).result as { isDelegated: boolean }).isDelegated ===
          true,
        'the delegation to be seen',
        { attempts: 20, stepMs: 100 },
      );
    } finally {
      await socket.close();
    }
  });

  it('an undelegation notified on the base chain moves routing back to the base chain within 2 s', async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    expect((await call('getDelegationStatus', [account])).result).to.include({ isDelegated: true });
    await base.undelegate(account);
    await waitFor(
      async () =>
        ((await call('getDelegationStatus', [account])).result as { isDelegated: boolean }).isDelegated ===
        false,
      'the undelegation to be seen',
      { attempts: 20, stepMs: 100 },
    );
  });

  // Validator A's ALT program refuses every recent slot ("is not a recent slot"), so the
  // table is the stand-in's, in the ALT program's layout.
  it('a v0 transaction whose delegated writable account is in a lookup table goes to the ER', async () => {
    const account = new PublicKey(newIdentity());
    await base.delegate(account.toBase58(), b);
    const table = Keypair.generate().publicKey;
    base.putLookupTable(table.toBase58(), [account.toBytes()]);
    const lookupTable = new AddressLookupTableAccount({
      key: table,
      state: {
        deactivationSlot: 2n ** 64n - 1n,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [account],
      },
    });
    const transfer = SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: account,
      lamports: 1_000_000,
    });
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: (await chainA.getLatestBlockhash()).blockhash,
      instructions: [transfer],
    }).compileToV0Message([lookupTable]);
    expect(message.staticAccountKeys.map((k) => k.toBase58())).to.not.include(account.toBase58());
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const before = base.methods.filter((m) => m === 'sendTransaction').length;
    const reply = await call('sendTransaction', [
      Buffer.from(tx.serialize()).toString('base64'),
      { encoding: 'base64' },
    ]);
    const fromB = er.passedThrough.get('sendTransaction') as RpcReply;
    expect(reply.error ?? null).to.deep.equal(fromB.error ?? null);
    expect(base.methods.filter((m) => m === 'sendTransaction').length).to.equal(before);
  });

  it('a v0 transaction naming a lookup table that does not exist is -32075, naming it', async () => {
    const table = Keypair.generate().publicKey;
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: (await chainA.getLatestBlockhash()).blockhash,
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: payer.publicKey, lamports: 1 }),
      ],
    }).compileToV0Message();
    message.addressTableLookups.push({ accountKey: table, writableIndexes: [0], readonlyIndexes: [] });
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const reply = await call('sendTransaction', [
      Buffer.from(tx.serialize()).toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(reply.error).to.deep.include({ code: -32603, message: 'Address lookup table not found' });
    expect(reply.error?.data).to.deep.include({ code: -32075, table: table.toBase58() });
  });

  for (const [what, params, code, pattern] of [
    [
      'a wire transaction that does not decode',
      ['AAAA', { encoding: 'base64' }],
      -32074,
      /not a legacy or v0/,
    ],
    ['text that is not base64', ['not base64!', { encoding: 'base64' }], -32074, /not base64/],
    ['an unknown encoding', ['AAAA', { encoding: 'base32' }], -32602, /encoding/],
  ] as const) {
    it(`sendTransaction of ${what} is ${code}, saying why`, async () => {
      const { error } = await call('sendTransaction', params);
      expect(causeOf(error)).to.equal(code);
      expect(JSON.stringify(error)).to.match(pattern);
    });
  }

  it('a pubkey that is not 32 bytes is -32602 naming the param', async () => {
    const { error } = await call('getDelegationStatus', ['3xyz']);
    expect(error?.code).to.equal(-32602);
    expect(JSON.stringify(error)).to.match(/params\/0/);
  });
  describe("getProgramAccounts: the base chain's list plus the program's delegated accounts from their ERs", () => {
    // The delegation program has no binary on the offline peers: the base-chain stand-in
    // answers its getProgramAccounts (records and delegated accounts, owned by it) and passes
    // the program's own list to validator A.
    let program: string;
    /** On A, owned by the program, never delegated. */
    let plain: string;
    /** On A, owned by the program, and delegated in the stand-in: its ER's entry replaces A's. */
    let both: string;
    /** Delegated, held only by the stand-ins (the base copy's data differs from the ER's). */
    let onlyEr: string;
    const erDataOfBoth = new Uint8Array(16).fill(7);
    const erDataOfOnlyEr = Uint8Array.from({ length: 24 }, (_, i) => i + 1);

    const createOnA = async (space: number): Promise<string> => {
      const account = Keypair.generate();
      const tx = new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: account.publicKey,
          lamports: await chainA.getMinimumBalanceForRentExemption(space),
          space,
          programId: new PublicKey(program),
        }),
      );
      await chainA
        .sendTransaction(tx, [payer, account])
        .then((sig) => chainA.confirmTransaction(sig, 'confirmed'));
      return account.publicKey.toBase58();
    };
    const raw = async (params: unknown): Promise<{ text: string; reply: RpcReply }> => {
      const { text } = await post(
        server.base,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getProgramAccounts', params }),
      );
      return { text, reply: JSON.parse(text) as RpcReply };
    };
    type Keyed = { pubkey: string; account: { data: unknown; owner: string } };
    const byKey = (list: unknown): Map<string, Keyed['account']> =>
      new Map((list as Keyed[]).map((k) => [k.pubkey, k.account]));
    const erReads = () => er.paramsOf.get('getMultipleAccounts')?.length ?? 0;

    before(async () => {
      program = newIdentity();
      plain = await createOnA(16);
      both = await createOnA(16);
      onlyEr = newIdentity();
      await base.delegateProgramAccount(both, b, program, new Uint8Array(16));
      er.putAccount(both, erDataOfBoth, program);
      await base.delegateProgramAccount(onlyEr, b, program, new Uint8Array(24));
      er.putAccount(onlyEr, erDataOfOnlyEr, program);
    });

    it("lists each delegated account with its ER's data (one read of the ER), replacing A's entry, rentEpoch u64::MAX as written", async () => {
      const reads = erReads();
      const { text, reply } = await raw([program, { encoding: 'base64' }]);
      expect(reply.error, text).to.equal(undefined);
      const accounts = byKey(reply.result);
      expect([...accounts.keys()].sort()).to.deep.equal([plain, both, onlyEr].sort());
      expect(accounts.get(both)!.data).to.deep.equal([
        Buffer.from(erDataOfBoth).toString('base64'),
        'base64',
      ]);
      expect(accounts.get(onlyEr)!.data).to.deep.equal([
        Buffer.from(erDataOfOnlyEr).toString('base64'),
        'base64',
      ]);
      expect(accounts.get(both)!.owner).to.equal(program);
      const direct = await chainA.getAccountInfo(new PublicKey(plain));
      expect(accounts.get(plain)!.data).to.deep.equal([
        Buffer.from(direct!.data).toString('base64'),
        'base64',
      ]);
      // A's entry and both ER entries: three u64::MAX as the chains wrote them.
      expect(text.split('"rentEpoch":18446744073709551615').length - 1, text).to.equal(3);
      expect(erReads() - reads, 'one getMultipleAccounts of the ER').to.equal(1);
      expect(er.paramsOf.get('getMultipleAccounts')!.at(-1)![0]).to.have.members([both, onlyEr]);
    });

    it("applies dataSize and memcmp to the ER's data, keeps dataSlice, encoding and withContext as asked", async () => {
      // memcmp on the ER's bytes (the base copy holds zeros there).
      const { reply } = await raw([
        program,
        {
          encoding: 'base58',
          dataSlice: { offset: 1, length: 3 },
          withContext: true,
          filters: [{ dataSize: 24 }, { memcmp: { offset: 2, bytes: bs58(Uint8Array.of(3, 4)) } }],
        },
      ]);
      const { context, value } = reply.result as { context: { slot: number }; value: Keyed[] };
      expect(context.slot).to.be.a('number');
      expect(value.map((k) => k.pubkey)).to.deep.equal([onlyEr]);
      expect(value[0]!.account.data).to.deep.equal([bs58(erDataOfOnlyEr.subarray(1, 4)), 'base58']);
      // The ER's data does not match what the base copy would.
      const none = await raw([
        program,
        { encoding: 'base64', filters: [{ memcmp: { offset: 2, bytes: bs58(Uint8Array.of(0, 0)) } }] },
      ]);
      expect([...byKey(none.reply.result).keys()]).to.not.include.members([onlyEr, both]);
      const small = await raw([program, { encoding: 'base64', filters: [{ dataSize: 16 }] }]);
      expect([...byKey(small.reply.result).keys()].sort()).to.deep.equal([plain, both].sort());
      expect(byKey(small.reply.result).get(both)!.data).to.deep.equal([
        Buffer.from(erDataOfBoth).toString('base64'),
        'base64',
      ]);
    });

    it("tokenAccountState is applied to the ER's data as Agave applies it, whether or not the program has delegated accounts", async () => {
      const tokens = newIdentity();
      const filters = ['tokenAccountState'];
      // A program without delegated accounts: the base chain's answer.
      const before = await raw([tokens, { encoding: 'base64', filters }]);
      expect(before.reply, before.text).to.deep.include({ result: [] });
      // An initialized token account (state at byte 108) and an account of another shape.
      const token = newIdentity();
      const tokenData = new Uint8Array(165);
      tokenData[108] = 1;
      const other = newIdentity();
      for (const [account, data] of [
        [token, tokenData],
        [other, new Uint8Array(16).fill(1)],
      ] as const) {
        await base.delegateProgramAccount(account, b, tokens, new Uint8Array(data.length));
        er.putAccount(account, data, tokens);
      }
      const after = await raw([tokens, { encoding: 'base64', filters }]);
      expect(after.reply.error, after.text).to.equal(undefined);
      expect([...byKey(after.reply.result).keys()]).to.deep.equal([token]);
      // A filter no chain applies is refused the same way with or without delegated accounts.
      for (const program of [tokens, newIdentity()]) {
        const refused = await raw([program, { filters: [{ tokenAmount: 1 }] }]);
        expect(refused.reply.error?.code, refused.text).to.equal(-32602);
      }
    });

    it('past delegation.programAccounts.maxDelegated it is -32077 naming the program and the cap', async () => {
      const crowded = newIdentity();
      for (let i = 0; i < 4; i++)
        await base.delegateProgramAccount(newIdentity(), b, crowded, new Uint8Array(8));
      const { reply } = await raw([crowded, { encoding: 'base64' }]);
      expect(reply.error).to.deep.equal({
        code: -32603,
        message: 'Too many delegated accounts',
        data: { code: -32077, program: crowded, delegated: 4, maxDelegated: 3 },
      });
    });

    it('an ER that does not answer is -32071 naming it, not a list without its accounts', async () => {
      const stranded = newIdentity();
      await base.delegateProgramAccount(newIdentity(), downIdentity, stranded, new Uint8Array(8));
      const { reply } = await raw([stranded, { encoding: 'base64' }]);
      expect(reply.error?.data).to.deep.include({ code: -32071, upstream: `er:${downIdentity}` });
    });

    it('an account delegated to an ER routing may not use is left out, as on the base chain, and the rest is served', async () => {
      const open = newIdentity();
      const elsewhere = newIdentity();
      const kept = newIdentity();
      await base.delegateProgramAccount(elsewhere, newIdentity(), open, new Uint8Array(8));
      await base.delegateProgramAccount(kept, b, open, new Uint8Array(8));
      er.putAccount(kept, new Uint8Array(8).fill(3), open);
      const { reply } = await raw([open, { encoding: 'base64' }]);
      expect(reply.error).to.equal(undefined);
      expect([...byKey(reply.result).keys()]).to.deep.equal([kept]);
    });

    it("after an undelegation it is the base chain's answer alone, and the ER is not asked", async () => {
      const moving = newIdentity();
      const account = newIdentity();
      await base.delegateProgramAccount(account, b, moving, new Uint8Array(8));
      er.putAccount(account, new Uint8Array(8).fill(9), moving);
      expect([...byKey((await raw([moving, { encoding: 'base64' }])).reply.result).keys()]).to.deep.equal([
        account,
      ]);
      await base.undelegate(account);
      const reads = erReads();
      const { text } = await raw([moving, { encoding: 'base64' }]);
      const direct = await post(
        VALIDATOR_A,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getProgramAccounts',
          params: [moving, { encoding: 'base64' }],
        }),
      );
      expect(text.trimEnd()).to.equal(direct.text.trimEnd());
      expect(erReads()).to.equal(reads);
    });
  });

  describe("getSignaturesForAddress: a delegated account's ER signatures, then the base chain's", () => {
    let address: string;
    /** The ER's history of the address, newest first (the stand-in's: B takes none of this payer's transactions). */
    let fromEr: string[];
    /** A's history of the address, newest first. */
    let fromA: string[];
    const history = async (config: object): Promise<RpcReply> =>
      call('getSignaturesForAddress', [address, config]);
    const signatures = (reply: RpcReply): string[] => {
      expect(reply.error, JSON.stringify(reply.error)).to.equal(undefined);
      return (reply.result as { signature: string }[]).map((e) => e.signature);
    };

    before(async () => {
      // An address the router has not looked up yet (a lookup is trusted for ten minutes
      // here), with three transactions on A.
      const owner = Keypair.generate().publicKey;
      address = owner.toBase58();
      for (let i = 0; i < 3; i++) {
        const tx = new Transaction().add(
          SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: owner, lamports: 1_000_000 }),
        );
        const sent = await chainA.sendTransaction(tx, [payer]);
        const { context } = await chainA.confirmTransaction(sent, 'confirmed');
        // One slot each: A orders a slot's own signatures by its own rule, which a cursor inside
        // the slot follows, so the test's order is the slots'.
        const landed = (await chainA.getSignatureStatus(sent)).value?.slot ?? context.slot;
        await waitFor(async () => (await chainA.getSlot('confirmed')) > landed, 'a later slot');
      }
      fromA = (await chainA.getSignaturesForAddress(owner, {}, 'confirmed')).map((e) => e.signature);
      expect(fromA.length).to.be.at.least(3);
      fromEr = [randomSignature(), randomSignature(), randomSignature()];
      er.histories.set(
        address,
        fromEr.map((signature, i) => ({
          signature,
          slot: 900 - i,
          err: null,
          memo: null,
          blockTime: 1_700_000_000 - i,
          confirmationStatus: 'finalized',
        })),
      );
    });
    after(() => er.histories.clear());

    it("not delegated: the base chain's answer byte for byte", async () => {
      const params = [payer.publicKey.toBase58(), { limit: 2, commitment: 'confirmed' }];
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params });
      // A writes a newest entry's blockTime a moment after its status: two reads made at once
      // may see it before and after. Asked again until A's own answer settles.
      let last: [string, string] = ['', ''];
      await waitFor(async () => {
        const [through, direct] = await Promise.all([post(server.base, body), post(VALIDATOR_A, body)]);
        last = [through.text.trimEnd(), direct.text.trimEnd()];
        return last[0] === last[1];
      }, 'the same answer through us as from A').catch(() => undefined);
      expect(last[0]).to.equal(last[1]);
    });

    describe('delegated', () => {
      before(async () => {
        await base.delegate(address, b);
      });
      after(async () => {
        await base.undelegate(address);
        await waitFor(
          async () =>
            ((await call('getDelegationStatus', [address])).result as { isDelegated: boolean })
              .isDelegated === false,
          'the undelegation to be seen',
        );
      });

      it("the ER's signatures first, then A's, limit counted over both", async () => {
        const all = signatures(await history({ commitment: 'confirmed' }));
        expect(all).to.deep.equal([...fromEr, ...fromA]);
        expect(signatures(await history({ limit: 4, commitment: 'confirmed' }))).to.deep.equal([
          ...fromEr,
          fromA[0],
        ]);
        const asked = base.methods.filter((m) => m === 'getSignaturesForAddress').length;
        expect(signatures(await history({ limit: 2 }))).to.deep.equal(fromEr.slice(0, 2));
        expect(base.methods.filter((m) => m === 'getSignaturesForAddress').length, 'A not asked').to.equal(
          asked,
        );
      });

      it("before an ER signature continues in the ER's list, then A's; before one of A's asks A only", async () => {
        expect(signatures(await history({ before: fromEr[1], commitment: 'confirmed' }))).to.deep.equal([
          fromEr[2],
          ...fromA,
        ]);
        const ers = er.methods.filter((m) => m === 'getSignaturesForAddress').length;
        expect(signatures(await history({ before: fromA[0], commitment: 'confirmed' }))).to.deep.equal(
          fromA.slice(1),
        );
        expect(
          er.methods.filter((m) => m === 'getSignaturesForAddress').length,
          "the ER's list not asked",
        ).to.equal(ers);
      });

      it("until an ER signature ends in the ER's list; until one of A's runs through the ER's into A's", async () => {
        const asked = base.methods.filter((m) => m === 'getSignaturesForAddress').length;
        expect(signatures(await history({ until: fromEr[1] }))).to.deep.equal([fromEr[0]]);
        expect(base.methods.filter((m) => m === 'getSignaturesForAddress').length).to.equal(asked);
        expect(signatures(await history({ until: fromA[1], commitment: 'confirmed' }))).to.deep.equal([
          ...fromEr,
          fromA[0],
        ]);
        expect(
          signatures(await history({ before: fromEr[0], until: fromA[1], commitment: 'confirmed' })),
        ).to.deep.equal([...fromEr.slice(1), fromA[0]]);
      });
    });
  });
});
