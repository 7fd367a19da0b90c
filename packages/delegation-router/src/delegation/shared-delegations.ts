import { compileSchema } from '@rollup-router/core';
import { address } from '@solana/kit';
import { sharedDelegationSchema, type SharedDelegation } from '../generated/schemas.js';
import type { DelegationRecord } from './record-codec.js';

/**
 * The few commands of a Redis client this needs (ioredis's, with the server's keyPrefix,
 * command timeout and reconnects): the tier never waits on a connection that is not ready.
 */
export interface SharedDelegationsClient {
  readonly status: string;
  mget(keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, mode: 'PX', ms: number): Promise<unknown>;
}

/** What another instance read, and until when it may be trusted (epoch ms). */
export interface SharedRead {
  readonly record: DelegationRecord | null;
  readonly slot: bigint;
  readonly until: number;
}

const isShared = compileSchema<SharedDelegation>(sharedDelegationSchema);

/** The key of an account's delegation (after the client's keyPrefix). */
export const delegationKey = (account: string): string => `delegation:${account}`;

/**
 * Delegations shared by every instance through Redis: what one reads from the base chain
 * (or is notified of) the others take instead of reading it again, for as long as the
 * reader trusted it unfollowed. A value that does not match the schema is a miss; Redis
 * down or slow is a miss too, never an error.
 */
export class SharedDelegations {
  constructor(
    private readonly client: SharedDelegationsClient,
    private readonly ttlMs: number,
  ) {}

  /** The shared reads of `accounts` that are still good, by account. */
  async get(accounts: readonly string[]): Promise<Map<string, SharedRead>> {
    const found = new Map<string, SharedRead>();
    if (accounts.length === 0 || this.client.status !== 'ready') return found;
    let values: (string | null)[];
    try {
      values = await this.client.mget(accounts.map(delegationKey));
    } catch {
      return found;
    }
    const now = Date.now();
    accounts.forEach((account, i) => {
      const read = parse(values[i] ?? null);
      if (read && read.until > now) found.set(account, read);
    });
    return found;
  }

  /** Shares what this instance learnt (not awaited: a read that cannot be shared still serves here). */
  put(account: string, record: DelegationRecord | null, slot: bigint): void {
    if (this.client.status !== 'ready') return;
    const value: SharedDelegation = {
      record: record && {
        authority: record.authority,
        owner: record.owner,
        delegationSlot: String(record.delegationSlot),
        lamports: String(record.lamports),
        commitFrequencyMs: String(record.commitFrequencyMs),
      },
      slot: String(slot),
      until: Date.now() + this.ttlMs,
    };
    this.client.set(delegationKey(account), JSON.stringify(value), 'PX', this.ttlMs).catch(() => undefined);
  }
}

function parse(text: string | null): SharedRead | undefined {
  if (text === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isShared(value)) return undefined;
  const { record, slot, until } = value;
  return {
    record: record && {
      authority: address(record.authority),
      owner: address(record.owner),
      delegationSlot: BigInt(record.delegationSlot),
      lamports: BigInt(record.lamports),
      commitFrequencyMs: BigInt(record.commitFrequencyMs),
    },
    slot: BigInt(slot),
    until,
  };
}
