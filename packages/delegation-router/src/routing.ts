import { RpcError } from '@rollup-router/core';
import type { DelegationSource } from './delegation/delegation-source.js';
import type { DelegationRecord } from './delegation/record-codec.js';
import { DelegationError } from './errors.js';
import type { ErDirectory } from './upstream/er-directory.js';
import type { Upstream } from './upstream/upstream.js';

/**
 * Where calls about accounts go: to the ER they are delegated to, or to the base chain
 * when none is. The one place that rule lives, and the one place that refuses an ER the
 * operator does not trust.
 */
export class Routing {
  constructor(
    readonly source: DelegationSource,
    readonly ers: ErDirectory,
    readonly baseChain: Upstream,
  ) {}

  /**
   * The chain that holds every delegated one of `accounts`: their ER when they all share
   * one, the base chain when none is delegated. Accounts delegated to different ERs are
   * -32072; an ER the route table does not list, or the allow-list leaves out, is -32070.
   */
  targetOf(accounts: readonly string[]): Upstream | Promise<Upstream> {
    const records = this.source.recordsOf(accounts);
    return records instanceof Promise
      ? records.then((known) => this.holderOf(accounts, known))
      : this.holderOf(accounts, records);
  }

  private holderOf(accounts: readonly string[], records: readonly (DelegationRecord | null)[]): Upstream {
    const byEr = new Map<string, string[]>();
    records.forEach((record, i) => {
      if (record === null) return;
      const list = byEr.get(record.authority) ?? byEr.set(record.authority, []).get(record.authority)!;
      list.push(accounts[i]!);
    });
    if (byEr.size === 0) return this.baseChain;
    if (byEr.size > 1) {
      throw RpcError.from(DelegationError.CONFLICTING_DELEGATIONS, { delegatedTo: Object.fromEntries(byEr) });
    }
    return this.erOfIdentity(byEr.keys().next().value!);
  }

  /** The chain that holds each account, in order (-32070 for an ER routing may not use). */
  async holdersOf(accounts: readonly string[]): Promise<Upstream[]> {
    const records = await this.source.recordsOf(accounts);
    return records.map((record) => (record === null ? this.baseChain : this.erOfIdentity(record.authority)));
  }

  /** The ER a record names, or -32070 naming it. */
  erOfRecord(record: DelegationRecord): Upstream {
    return this.erOfIdentity(record.authority);
  }

  /** The ER of this identity (a record's authority), or -32070 naming it. */
  erOfIdentity(identity: string): Upstream {
    const found = this.ers.lookup(identity);
    if (found.ok) return found.er;
    throw new RpcError(
      DelegationError.UNKNOWN_ER_NODE.code,
      `${DelegationError.UNKNOWN_ER_NODE.message}: ${identity}`,
      { identity, reason: found.reason },
    );
  }
}
