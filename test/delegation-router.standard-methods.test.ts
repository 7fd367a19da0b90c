// Every method of the delegation router's method table, through the reference server and
// straight to validator A (the base chain), compared: the same answer, or A's own error,
// except values that move with the slot, compared by shape. A is a MagicBlock validator
// without the SPL token program: token methods are compared on their errors.
import { expect } from 'chai';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
} from '@solana/web3.js';
import { METHOD_TABLE } from '@rollup-router/delegation-router';
import { VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { newIdentity } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { serveWith, tempDir, type ServerProcess } from './server.harness.js';

interface Reply {
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

async function post(url: string, method: string, params: unknown): Promise<{ text: string; reply: Reply }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { text, reply: JSON.parse(text) as Reply };
}

/** Values that move with the slot between two calls: compared by shape (types and keys). */
const MOVING = new Set([
  'getSlot',
  'getBlockHeight',
  'getEpochInfo',
  'getLatestBlockhash',
  'getTransactionCount',
  'getRecentPerformanceSamples',
  'getSlotLeader',
  'getSlotLeaders',
  'getBlockProduction',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getHighestSnapshotSlot',
  'getFirstAvailableBlock',
  'minimumLedgerSlot',
  'getSupply',
  'getLargestAccounts',
  'getBlocks',
  'getBlocksWithLimit',
  'getLeaderSchedule',
  'getVoteAccounts',
  'getRecentPrioritizationFees',
  'getBlockCommitment',
  'requestAirdrop',
  'simulateTransaction',
]);

/** The shape of a JSON value: its types and keys, not its numbers or strings. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    );
  }
  return value === null ? null : typeof value;
}

/** `context.slot` moves between the two calls: everything else of an answer in context must be equal. */
const withoutSlot = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && 'context' in value
    ? { ...value, context: { ...(value as { context: object }).context, slot: 0 } }
    : value;

describe('delegation router: every standard method through the router equals validator A direct', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let dir: ReturnType<typeof tempDir>;
  const payer = Keypair.generate();
  const a = new Connection(VALIDATOR_A, 'confirmed');
  const params: Record<string, unknown[]> = {};

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: { routes: [] },
      delegation: { baseChain: { url: VALIDATOR_A }, delegations: { follow: false } },
      statuses: { store: false },
      websocket: { port: false },
    });
    await a.confirmTransaction(await a.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL), 'confirmed');
    const { blockhash } = await a.getLatestBlockhash('confirmed');
    const slot = await a.getSlot('confirmed');
    const transfer = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 5000,
      }),
    );
    transfer.sign(payer);
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: transfer.instructions,
    }).compileToV0Message();
    const mint = newIdentity();
    const me = payer.publicKey.toBase58();
    Object.assign(params, {
      getAccountInfo: [me, { encoding: 'base64' }],
      getBalance: [me],
      getTokenAccountBalance: [me],
      getTokenSupply: [mint],
      simulateTransaction: [transfer.serialize().toString('base64'), { encoding: 'base64' }],
      getFeeForMessage: [Buffer.from(message.serialize()).toString('base64')],
      isBlockhashValid: [blockhash, { commitment: 'confirmed' }],
      getProgramAccounts: [
        new PublicKey('Vote111111111111111111111111111111111111111').toBase58(),
        { encoding: 'base64' },
      ],
      getTokenAccountsByOwner: [me, { mint }],
      getTokenAccountsByDelegate: [me, { mint }],
      getTokenLargestAccounts: [mint],
      getLargestAccounts: [],
      getSignaturesForAddress: [me, { limit: 5 }],
      getMinimumBalanceForRentExemption: [165],
      getBlock: [
        slot,
        { maxSupportedTransactionVersion: 0, transactionDetails: 'signatures', rewards: false },
      ],
      getBlocks: [slot - 5, slot],
      getBlocksWithLimit: [slot - 5, 3],
      getBlockTime: [slot],
      getBlockCommitment: [slot],
      getInflationReward: [[me]],
      getSlotLeaders: [slot, 2],
    });
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
  });

  for (const method of Object.keys(METHOD_TABLE)) {
    it(method, async () => {
      // Two airdrops of one amount to one key at once are one transaction: each asks for its own key.
      const given = () => (method === 'requestAirdrop' ? [newIdentity(), 1000] : (params[method] ?? []));
      const [through, direct] = await Promise.all([
        post(server.base, method, given()),
        post(VALIDATOR_A, method, given()),
      ]);
      if (direct.reply.error !== undefined) {
        expect(through.reply.error, through.text).to.deep.equal(direct.reply.error);
        return;
      }
      expect(through.reply.error, through.text).to.equal(undefined);
      if (MOVING.has(method)) {
        expect(shape(through.reply.result)).to.deep.equal(shape(direct.reply.result));
      } else {
        expect(withoutSlot(through.reply.result)).to.deep.equal(withoutSlot(direct.reply.result));
      }
    });
  }

  it("keeps A's bytes: a rent-exempt account's rentEpoch u64::MAX comes through as A wrote it", async () => {
    const me = payer.publicKey.toBase58();
    for (const [method, given] of [
      ['getAccountInfo', [me, { encoding: 'base64' }]],
      ['getMultipleAccounts', [[me], { encoding: 'base64' }]],
    ] as const) {
      const [through, direct] = await Promise.all([
        post(server.base, method, given),
        post(VALIDATOR_A, method, given),
      ]);
      expect(direct.text, `${method}: A writes u64::MAX`).to.include('"rentEpoch":18446744073709551615');
      expect(through.text, method).to.include('"rentEpoch":18446744073709551615');
    }
  });
});
