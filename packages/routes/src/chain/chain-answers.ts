import type { ChainAccount } from './record-state.js';

/**
 * The shapes of a Solana node's answers and notifications that the chain source reads,
 * checked: anything else is undefined, so a node answering nonsense fails the read (and is
 * retried) instead of reaching the record table.
 */

/** An account at the slot the node read it at; null when there is none. */
export interface AccountAtSlot {
  readonly slot: bigint;
  readonly account: ChainAccount | null;
}

export interface KeyedAccount {
  readonly pubkey: string;
  readonly account: ChainAccount;
}

/** Every account of a program at the slot the node read them at. */
export interface ProgramAccountsAtSlot {
  readonly slot: bigint;
  readonly accounts: readonly KeyedAccount[];
}

type Fields = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A context's slot: a non-negative safe integer (a JSON number past 2^53 is not exact). */
function slotOf(result: Fields): bigint | undefined {
  const slot = isObject(result.context) ? result.context.slot : undefined;
  return typeof slot === 'number' && Number.isSafeInteger(slot) && slot >= 0 ? BigInt(slot) : undefined;
}

function accountOf(v: unknown): ChainAccount | undefined {
  if (!isObject(v)) return undefined;
  const { lamports, owner, data } = v;
  if (typeof lamports !== 'number' || typeof owner !== 'string') return undefined;
  if (typeof data === 'string') return { lamports, owner, data };
  if (Array.isArray(data) && typeof data[0] === 'string' && typeof data[1] === 'string')
    return { lamports, owner, data: [data[0], data[1]] };
  return undefined;
}

function keyedAccountOf(v: unknown): KeyedAccount | undefined {
  if (!isObject(v) || typeof v.pubkey !== 'string') return undefined;
  const account = accountOf(v.account);
  return account && { pubkey: v.pubkey, account };
}

/** getAccountInfo's result, or an accountNotification's. */
export function accountAtSlot(result: unknown): AccountAtSlot | undefined {
  if (!isObject(result)) return undefined;
  const slot = slotOf(result);
  const account = result.value === null ? null : accountOf(result.value);
  return slot === undefined || account === undefined ? undefined : { slot, account };
}

/** getProgramAccounts' result with `withContext`. */
export function programAccountsAtSlot(result: unknown): ProgramAccountsAtSlot | undefined {
  if (!isObject(result) || !Array.isArray(result.value)) return undefined;
  const slot = slotOf(result);
  const accounts = result.value.map(keyedAccountOf);
  if (slot === undefined || accounts.some((a) => a === undefined)) return undefined;
  return { slot, accounts: accounts as KeyedAccount[] };
}

/** A programNotification's result: the one account that changed. */
export function keyedAccountAtSlot(result: unknown): (KeyedAccount & { readonly slot: bigint }) | undefined {
  if (!isObject(result)) return undefined;
  const slot = slotOf(result);
  const keyed = keyedAccountOf(result.value);
  return slot === undefined || keyed === undefined ? undefined : { slot, ...keyed };
}
