import { RpcError } from '@rollup-router/core';
import { getAddressDecoder } from '@solana/kit';
import { LRUCache } from 'lru-cache';
import { DelegationError } from '../errors.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';
import type { RoutedAccounts, TableLookup } from './decode-transaction.js';

/** The address lookup table program. */
export const LOOKUP_TABLE_PROGRAM_ID = 'AddressLookupTab1e1111111111111111111111111';
/** `LOOKUP_TABLE_META_SIZE`: the table's metadata, then its addresses, 32 bytes each. */
const META_SIZE = 56;

const addressDecoder = getAddressDecoder();

/**
 * The addresses of address lookup tables, read from the base chain and cached (at most
 * `maxAddresses` addresses, all tables together). A table
 * only ever grows (addresses are appended, never changed), so a cached table answers
 * every index it holds; an index past its end is read again.
 */
export class LookupTables {
  private readonly tables: LRUCache<string, readonly string[]>;

  constructor(
    private readonly caller: UpstreamCaller,
    private readonly baseChain: Upstream,
    maxAddresses: number,
  ) {
    // Bounded by what it holds, not by tables: anyone can create full tables and name them.
    this.tables = new LRUCache({
      maxSize: maxAddresses,
      sizeCalculation: (addresses) => Math.max(1, addresses.length),
    });
  }

  /** Every writable account of a transaction or message: its static ones, then those of its lookup tables. */
  async writableOf(routed: RoutedAccounts): Promise<string[]> {
    if (routed.lookups.length === 0) return [...routed.writableStatic];
    return [...routed.writableStatic, ...(await this.writableAddresses(routed.lookups))];
  }

  /** The writable addresses the lookups name, in order. */
  async writableAddresses(lookups: readonly TableLookup[]): Promise<string[]> {
    if (lookups.length === 0) return [];
    const stale = lookups
      .filter((l) => {
        const known = this.tables.get(l.table);
        return known === undefined || l.writableIndexes.some((i) => i >= known.length);
      })
      .map((l) => l.table);
    if (stale.length > 0) await this.read([...new Set(stale)]);
    const out: string[] = [];
    for (const { table, writableIndexes } of lookups) {
      const addresses = this.tables.get(table)!;
      for (const i of writableIndexes) {
        const found = addresses[i];
        if (found === undefined) {
          throw RpcError.from(DelegationError.LOOKUP_TABLE_NOT_FOUND, {
            table,
            reason: `index ${i} is past the table's ${addresses.length} addresses`,
          });
        }
        out.push(found);
      }
    }
    return out;
  }

  private async read(tables: readonly string[]): Promise<void> {
    const reply = await this.caller.call<{ value?: unknown }>(this.baseChain, 'getMultipleAccounts', [
      tables,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    const value = reply?.value;
    if (!Array.isArray(value) || value.length !== tables.length) {
      throw this.caller.badReply(
        this.baseChain,
        'getMultipleAccounts',
        'getMultipleAccounts answered no account list',
      );
    }
    tables.forEach((table, i) => {
      const account = value[i] as { owner?: unknown; data?: unknown } | null;
      const data = Array.isArray(account?.data) ? account.data[0] : undefined;
      if (account == null || account.owner !== LOOKUP_TABLE_PROGRAM_ID || typeof data !== 'string') {
        throw RpcError.from(DelegationError.LOOKUP_TABLE_NOT_FOUND, {
          table,
          reason: account == null ? 'no such account' : 'not an address lookup table',
        });
      }
      const bytes = Buffer.from(data, 'base64');
      const addresses: string[] = [];
      for (let at = META_SIZE; at + 32 <= bytes.length; at += 32) {
        addresses.push(addressDecoder.decode(bytes.subarray(at, at + 32)));
      }
      this.tables.set(table, addresses);
    });
  }
}
