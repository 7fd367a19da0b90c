import { RpcError } from '@rollup-router/core';
import { address, isAddress, type Address } from '@solana/kit';
import { LRUCache } from 'lru-cache';
import { DelegationError } from '../errors.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import { delegationRecordAddress } from './record-address.js';
import { authorityOfSlice, programRecordsConfig } from './program-records.js';

/** One account of a program delegated now: the account and the ER validator its record names. */
export interface ProgramDelegation {
  readonly account: string;
  readonly authority: string;
}

export interface ProgramDelegationsOptions {
  readonly baseChain: Upstream;
  readonly programId: string;
  /** Delegated accounts of one program served at most; past it, -32077. */
  readonly maxDelegated: number;
  /** Record addresses whose delegated account is remembered. */
  readonly maxRemembered: number;
}

export interface ReadCall {
  readonly signal: AbortSignal;
  readonly commitment?: unknown;
  readonly maxReplyBytes: number;
}

type Listed = { readonly pubkey: string; readonly data: string };

/**
 * Which accounts of a program are delegated now, read from the base chain: the delegation
 * records whose owner field names the program (the delegation program's accounts filtered
 * on size, discriminator and owner), and for each the account it belongs to.
 *
 * A record's address is PDA(["delegation", account]) and does not name the account, nor
 * does its data (src/state/delegation_record.rs). The delegated account itself is owned by
 * the delegation program while delegated, so it is one of that program's accounts: they
 * are listed (keys only, no data) and each one whose record address is one of the records
 * found is the account. A record address is derived, not read, so what was matched is kept
 * for every later call; the listing is asked only for records not matched yet, and each
 * listed account's record address is kept too, so a later listing derives only new ones.
 */
export class ProgramDelegations {
  private readonly accountOf: LRUCache<string, string>;
  /** Listed account → its record address (a PDA derivation each), bounded like the matches. */
  private readonly recordOf: LRUCache<string, string>;

  constructor(
    private readonly caller: UpstreamCaller,
    private readonly options: ProgramDelegationsOptions,
  ) {
    this.accountOf = new LRUCache({ max: options.maxRemembered });
    this.recordOf = new LRUCache({ max: options.maxRemembered });
  }

  /** The accounts of `program` delegated now, or -32077 when they are more than maxDelegated. */
  async of(program: string, call: ReadCall): Promise<ProgramDelegation[]> {
    const records = await this.recordsOf(program, call);
    if (records.length > this.options.maxDelegated) {
      throw RpcError.from(DelegationError.TOO_MANY_DELEGATED, {
        program,
        delegated: records.length,
        maxDelegated: this.options.maxDelegated,
      });
    }
    const unmatched = new Set(records.filter((r) => !this.accountOf.has(r.pubkey)).map((r) => r.pubkey));
    if (unmatched.size > 0) await this.match(unmatched, call);
    return records.map((record) => {
      const account = this.accountOf.get(record.pubkey);
      // The record was read, its account was not found with the delegation program: one of
      // the two moved between the reads (an undelegation). An answer without it could be
      // taken for one where the account is gone.
      if (account === undefined) {
        throw this.caller.badReply(
          this.options.baseChain,
          'getProgramAccounts',
          `delegation record ${record.pubkey} has no delegated account: the delegation changed while read`,
        );
      }
      const authority = authorityOfSlice(record.data);
      if (authority === undefined) {
        throw this.caller.badReply(
          this.options.baseChain,
          'getProgramAccounts',
          'a record slice is not 32 bytes',
        );
      }
      return { account, authority };
    });
  }

  /** The program's delegation records: their addresses and authorities (the data is sliced to it). */
  private async recordsOf(program: string, call: ReadCall): Promise<Listed[]> {
    return this.list({ ...programRecordsConfig(program), ...this.commitmentOf(call) }, call);
  }

  /** Finds the accounts of `records` among the delegation program's accounts. */
  private async match(records: Set<string>, call: ReadCall): Promise<void> {
    const listed = await this.list(
      { encoding: 'base64', dataSlice: { offset: 0, length: 0 }, ...this.commitmentOf(call) },
      call,
    );
    const programId = address(this.options.programId);
    for (const { pubkey } of listed) {
      if (records.size === 0) return;
      if (records.has(pubkey) || !isAddress(pubkey)) continue; // a record is no delegated account
      const record = this.recordOf.get(pubkey) ?? (await this.derive(pubkey, programId));
      if (records.delete(record)) this.accountOf.set(record, pubkey);
    }
  }

  private async derive(account: string, programId: Address): Promise<string> {
    const record = await delegationRecordAddress(address(account), programId);
    this.recordOf.set(account, record);
    return record;
  }

  private async list(config: object, call: ReadCall): Promise<Listed[]> {
    const { baseChain, programId } = this.options;
    const reply = await this.caller.call<unknown>(baseChain, 'getProgramAccounts', [programId, config], call);
    const listed = listedIn(reply);
    if (listed === undefined) {
      throw this.caller.badReply(baseChain, 'getProgramAccounts', 'no list of keyed accounts');
    }
    return listed;
  }

  private commitmentOf(call: ReadCall): { commitment?: unknown } {
    return call.commitment === undefined ? {} : { commitment: call.commitment };
  }
}

/** The keyed accounts of a getProgramAccounts reply (base64 data), when it is one. */
function listedIn(reply: unknown): Listed[] | undefined {
  if (!Array.isArray(reply)) return undefined;
  const listed: Listed[] = [];
  for (const entry of reply as unknown[]) {
    const { pubkey, account } = (entry ?? {}) as { pubkey?: unknown; account?: { data?: unknown } };
    const data = Array.isArray(account?.data) ? (account.data as unknown[])[0] : undefined;
    if (typeof pubkey !== 'string' || typeof data !== 'string') return undefined;
    listed.push({ pubkey, data });
  }
  return listed;
}
