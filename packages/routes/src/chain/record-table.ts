import type { RouteEntry } from '../generated/schemas.js';

/** What one registry account means for getRoutes. */
export type RecordState =
  | { readonly kind: 'listed'; readonly entry: RouteEntry }
  /** A valid record that is not listed (Draining, Offline), or one that cannot be (`skipped`). */
  | { readonly kind: 'unlisted'; readonly why: string; readonly skipped: boolean }
  /** Closed (unregistered): zero lamports, no data, or no longer the program's. */
  | { readonly kind: 'closed' };

interface Row {
  readonly state: RecordState;
  /** The slot this state was read at: an older read never overwrites a newer one. */
  readonly slot: bigint;
}

/**
 * The registry's accounts by address, each with the slot it was last read at. A full
 * read and the live notifications race (a notification can arrive before the read that
 * started earlier answers); ordering by slot makes the latest state win whatever the
 * arrival order, and a closed account is remembered until a full read at a later slot
 * has also not seen it.
 */
export class RecordTable {
  private rows = new Map<string, Row>();

  /** Applies one account's state read at `slot`; false when it was stale or changed nothing. */
  apply(address: string, state: RecordState, slot: bigint): boolean {
    const row = this.rows.get(address);
    if (row && row.slot > slot) return false;
    this.rows.set(address, { state, slot });
    return row === undefined || JSON.stringify(row.state) !== JSON.stringify(state);
  }

  /**
   * Applies a full read of every account at `slot`: accounts it lists are applied, and
   * accounts it does not list are gone unless something newer than the read says otherwise.
   */
  applyFullRead(accounts: ReadonlyMap<string, RecordState>, slot: bigint): void {
    for (const [address, state] of accounts) this.apply(address, state, slot);
    for (const [address, row] of this.rows) {
      if (accounts.has(address) || row.slot > slot) continue;
      this.rows.delete(address);
    }
  }

  /** The listed nodes, ordered by identity so that getRoutes' order is stable. */
  entries(): RouteEntry[] {
    const entries: RouteEntry[] = [];
    for (const { state } of this.rows.values()) if (state.kind === 'listed') entries.push(state.entry);
    return entries.sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
  }

  /** Addresses of the accounts that exist (to be followed for changes and closing). */
  liveAddresses(): string[] {
    return [...this.rows].filter(([, row]) => row.state.kind !== 'closed').map(([address]) => address);
  }

  isLive(address: string): boolean {
    const row = this.rows.get(address);
    return row !== undefined && row.state.kind !== 'closed';
  }
}
