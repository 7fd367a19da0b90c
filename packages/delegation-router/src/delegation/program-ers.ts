import { RpcError } from '@rollup-router/core';
import type { UpstreamSubscription } from '@rollup-router/core/upstream-socket';
import type { Commitment } from '@rollup-router/solana';
import { DelegationError } from '../errors.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import { authorityOfSlice, programRecordsConfig } from './program-records.js';

/**
 * What one record costs in the lookup's reply (its address and its 32-byte ER in base64,
 * with the account's other fields: about 220 bytes), with room: the reply's cap is this
 * times the record cap.
 */
const REPLY_BYTES_PER_RECORD = 300;

/** The ERs that hold a program's delegated accounts, or why they are not known. */
export type ProgramErs =
  | { readonly known: true; readonly authorities: ReadonlySet<string> }
  | { readonly known: false; readonly reason: 'over_cap' | 'unreadable' };

type SlicedAccount = { readonly account?: { readonly data?: unknown } };

/**
 * The ERs a program's accounts are delegated to, read from the delegation records whose
 * owner field is the program: on the base chain a delegated account is owned by the
 * delegation program, and its record keeps the owner it had. The records do not name the
 * accounts (a record's address is derived from its account, not the other way round), so
 * what this gives is the ERs; which account an ER notifies is delegated is asked of the
 * delegation source, per account.
 */
export class ProgramErLookup {
  constructor(
    private readonly caller: UpstreamCaller,
    private readonly baseChain: Upstream,
    /** The delegation program. */
    private readonly programId: string,
    private readonly commitment: Commitment,
    /** Records read at most (delegations.maxProgramRecords); 0: never read. */
    private readonly maxRecords: number,
  ) {}

  /**
   * The ERs named by the records of `program` now: one getProgramAccounts of the delegation
   * program on the base chain, filtered on the records' owner, asking each record's ER only.
   * Not known past the cap, or when the base chain does not answer.
   */
  async ersOf(program: string): Promise<ProgramErs> {
    if (this.maxRecords === 0) return { known: false, reason: 'over_cap' };
    let records: unknown;
    try {
      records = await this.caller.call<unknown>(
        this.baseChain,
        'getProgramAccounts',
        [this.programId, { ...programRecordsConfig(program), commitment: this.commitment }],
        { maxReplyBytes: this.maxRecords * REPLY_BYTES_PER_RECORD },
      );
    } catch (err) {
      if (err instanceof RpcError && err.code === DelegationError.REPLY_TOO_LARGE.code) {
        return { known: false, reason: 'over_cap' };
      }
      return { known: false, reason: 'unreadable' };
    }
    if (!Array.isArray(records)) return { known: false, reason: 'unreadable' };
    if (records.length > this.maxRecords) return { known: false, reason: 'over_cap' };
    const authorities = new Set<string>();
    for (const record of records as SlicedAccount[]) {
      const authority = authorityOf(record.account?.data);
      if (authority !== undefined) authorities.add(authority);
    }
    return { known: true, authorities };
  }

  /** The base-chain subscription notified of every record of `program` written from now on (a delegation). */
  recordsSubscription(program: string): UpstreamSubscription {
    return {
      subscribe: 'programSubscribe',
      unsubscribe: 'programUnsubscribe',
      notification: 'programNotification',
      params: [this.programId, { ...programRecordsConfig(program), commitment: this.commitment }],
    };
  }

  /** The ER a notification of recordsSubscription names. */
  authorityIn(result: unknown): string | undefined {
    return authorityOf((result as { value?: { account?: { data?: unknown } } } | null)?.value?.account?.data);
  }
}

/** The ER of a record sliced to its authority (base64), when it is one. */
function authorityOf(data: unknown): string | undefined {
  if (!Array.isArray(data) || typeof data[0] !== 'string' || data[1] !== 'base64') return undefined;
  return authorityOfSlice(data[0]);
}
