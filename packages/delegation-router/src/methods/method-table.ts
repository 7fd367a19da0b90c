/**
 * Where each standard Solana method the router forwards goes:
 * - `base`: the base chain (the cluster, its blocks and ledger; reads of many accounts by
 *   program or owner; airdrops);
 * - `account`: the chain that holds the account `params[0]` names;
 * - `transaction`: the chain that holds the writable accounts of the wire transaction
 *   `params[0]` (lookup tables resolved), as sendTransaction routes it;
 * - `message`: the same for the wire message `params[0]` (getFeeForMessage);
 * - `blockhash`: the chain that handed out the blockhash `params[0]`, else the base chain;
 * - `program`: the base chain's accounts of the program `params[0]`, with those of them
 *   delegated now as their ERs hold them (program-accounts.ts);
 * - `history`: the signatures of the address `params[0]`: its ER's while delegated, then the
 *   base chain's (signatures-for-address.ts).
 *
 * The router's own methods (getBlockhashForAccounts, getIdentity, getDelegationStatus) and
 * those it answers by merging or remembering (sendTransaction, getMultipleAccounts,
 * getTransaction; getSignatureStatuses is the statuses plugin's) are defined beside it.
 */
export type Route = 'base' | 'account' | 'transaction' | 'message' | 'blockhash' | 'program' | 'history';

/** The routes whose answer is one chain's, forwarded as it wrote it. */
export type ForwardRoute = Exclude<Route, 'program' | 'history'>;

/**
 * Which reply cap applies (delegation.maxReplyBytes): `small` answers, one `account` (up to
 * 10 MiB of data, base64), `large` cluster-wide answers (a block, the leader schedule, the
 * cluster's nodes), and lists of `accounts` (by program or owner, unbounded on mainnet).
 */
export type ReplyClass = 'small' | 'account' | 'large' | 'accounts';

export interface TableEntry {
  readonly route: Route;
  readonly reply: ReplyClass;
  /** Positional params Agave takes at most. */
  readonly maxParams: number;
  /** A write: never cancelled when its caller leaves, never retried. */
  readonly write?: true;
}

const base = (reply: ReplyClass, maxParams: number): TableEntry => ({ route: 'base', reply, maxParams });

export const METHOD_TABLE = {
  getAccountInfo: { route: 'account', reply: 'account', maxParams: 2 },
  getBalance: { route: 'account', reply: 'small', maxParams: 2 },
  getTokenAccountBalance: { route: 'account', reply: 'small', maxParams: 2 },
  getTokenSupply: { route: 'account', reply: 'small', maxParams: 2 },
  simulateTransaction: { route: 'transaction', reply: 'account', maxParams: 2 },
  getFeeForMessage: { route: 'message', reply: 'small', maxParams: 2 },
  isBlockhashValid: { route: 'blockhash', reply: 'small', maxParams: 2 },
  getProgramAccounts: { route: 'program', reply: 'accounts', maxParams: 2 },
  getTokenAccountsByOwner: base('accounts', 3),
  getTokenAccountsByDelegate: base('accounts', 3),
  getTokenLargestAccounts: base('small', 2),
  getLargestAccounts: base('small', 1),
  getSignaturesForAddress: { route: 'history', reply: 'large', maxParams: 2 },
  getLatestBlockhash: base('small', 1),
  getBlockHeight: base('small', 1),
  getSlot: base('small', 1),
  getEpochInfo: base('small', 1),
  getEpochSchedule: base('small', 0),
  getVersion: base('small', 0),
  getHealth: base('small', 0),
  getGenesisHash: base('small', 0),
  getMinimumBalanceForRentExemption: base('small', 2),
  getRecentPrioritizationFees: base('small', 1),
  getBlock: base('large', 2),
  getBlocks: base('large', 3),
  getBlocksWithLimit: base('large', 3),
  getBlockTime: base('small', 1),
  getBlockCommitment: base('small', 1),
  getBlockProduction: base('large', 1),
  getClusterNodes: base('large', 0),
  getFirstAvailableBlock: base('small', 0),
  getHighestSnapshotSlot: base('small', 0),
  getInflationGovernor: base('small', 1),
  getInflationRate: base('small', 0),
  getInflationReward: base('small', 2),
  getLeaderSchedule: base('large', 2),
  getMaxRetransmitSlot: base('small', 0),
  getMaxShredInsertSlot: base('small', 0),
  getRecentPerformanceSamples: base('small', 1),
  getSlotLeader: base('small', 1),
  getSlotLeaders: base('large', 2),
  getStakeMinimumDelegation: base('small', 1),
  getSupply: base('large', 1),
  getTransactionCount: base('small', 1),
  getVoteAccounts: base('large', 1),
  minimumLedgerSlot: base('small', 0),
  requestAirdrop: { route: 'base', reply: 'small', maxParams: 3, write: true },
} as const satisfies Record<string, TableEntry>;

export type TableMethod = keyof typeof METHOD_TABLE;
