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

export interface RecordTableLimits {
  /** Records followed at most (each costs a subscription, a probe loop, a metrics label). */
  readonly maxRecords: number;
  /** Removals remembered at most; past it the oldest is forgotten (see `forgottenBelow`). */
  readonly maxRemovals: number;
}

const DEFAULT_LIMITS: RecordTableLimits = { maxRecords: Number.MAX_SAFE_INTEGER, maxRemovals: 4096 };

/**
 * The registry's accounts by address, each with the slot it was last read at. A full
 * read and the live notifications race (a notification can arrive before the read that
 * started earlier answers, and a read can be answered by a node that lags); ordering by
 * slot makes the latest state win whatever the arrival order.
 *
 * A removal (a closing notification, or a full read that no longer lists a record) is
 * remembered with its slot, so that older information, a late read above all, cannot
 * list the node again. Removals are bounded: the oldest is forgotten, and from then on
 * any information about an account the table does not hold that is older than the
 * forgotten removal is ignored (it only delays a record that a newer read brings).
 *
 * Registering a record needs no permission, so at most `maxRecords` are followed. The
 * records followed stay followed while they exist; a new one is taken only while there
 * is room, so a flood of registrations never evicts a node already followed. When a full
 * read offers more new records than there is room for, Active records with a valid entry
 * come first, then the lowest addresses: the same chain gives the same choice.
 */
export class RecordTable {
  private readonly rows = new Map<string, Row>();
  /** Removed accounts and the slot of their removal, oldest first. */
  private readonly removals = new Map<string, bigint>();
  /** Information older than this about an account the table does not hold is ignored. */
  private forgottenBelow = 0n;
  /** Existing accounts not followed for want of room (since the last full read). */
  private readonly refused = new Set<string>();
  private readonly limits: RecordTableLimits;

  constructor(limits: Partial<RecordTableLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Applies one account's state read at `slot`; false when it was stale, refused or changed nothing. */
  apply(address: string, state: RecordState, slot: bigint): boolean {
    const row = this.rows.get(address);
    if (row ? row.slot > slot : this.removedAfter(address, slot)) return false;
    if (state.kind === 'closed') {
      this.refused.delete(address);
      this.rememberRemoval(address, slot);
      return this.rows.delete(address);
    }
    if (!row && this.rows.size >= this.limits.maxRecords) {
      this.refused.add(address);
      return false;
    }
    this.removals.delete(address);
    this.rows.set(address, { state, slot });
    return row === undefined || JSON.stringify(row.state) !== JSON.stringify(state);
  }

  /**
   * Applies a full read of every account at `slot`: accounts it does not list are gone
   * unless something newer than the read says otherwise; the records followed take their
   * new state; then new records take the room left.
   */
  applyFullRead(accounts: ReadonlyMap<string, RecordState>, slot: bigint): void {
    for (const [address, row] of this.rows) {
      if (accounts.has(address) || row.slot > slot) continue;
      this.rows.delete(address);
      this.rememberRemoval(address, slot);
    }
    this.refused.clear();
    const fresh: [string, RecordState][] = [];
    for (const [address, state] of accounts) {
      if (this.rows.has(address) || state.kind === 'closed') this.apply(address, state, slot);
      else fresh.push([address, state]);
    }
    fresh.sort(([a, sa], [b, sb]) => rank(sa) - rank(sb) || (a < b ? -1 : a > b ? 1 : 0));
    for (const [address, state] of fresh) this.apply(address, state, slot);
  }

  /** The listed nodes, ordered by identity so that getRoutes' order is stable. */
  entries(): RouteEntry[] {
    const entries: RouteEntry[] = [];
    for (const { state } of this.rows.values()) if (state.kind === 'listed') entries.push(state.entry);
    return entries.sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
  }

  /** Addresses of the records followed (to be subscribed to for changes and closing). */
  liveAddresses(): string[] {
    return [...this.rows.keys()];
  }

  isLive(address: string): boolean {
    return this.rows.has(address);
  }

  /** Records followed right now. */
  followed(): number {
    return this.rows.size;
  }

  /** Existing records not followed because `maxRecords` are: the last full read's, plus any refused since. */
  notFollowed(): number {
    return this.refused.size;
  }

  /** Removals remembered right now (bounded by `maxRemovals`). */
  removalsHeld(): number {
    return this.removals.size;
  }

  private removedAfter(address: string, slot: bigint): boolean {
    const removedAt = this.removals.get(address);
    // At the removal's own slot too: a node answers a read "at" the slot whose transactions it
    // is still processing, so a read at that slot may show the record the slot's Unregister closed.
    return removedAt === undefined ? slot < this.forgottenBelow : removedAt >= slot;
  }

  private rememberRemoval(address: string, slot: bigint): void {
    const before = this.removals.get(address);
    this.removals.delete(address);
    this.removals.set(address, before !== undefined && before > slot ? before : slot);
    if (this.removals.size <= this.limits.maxRemovals) return;
    const [oldest, at] = this.removals.entries().next().value as [string, bigint];
    this.removals.delete(oldest);
    if (at > this.forgottenBelow) this.forgottenBelow = at;
  }
}

/** Which new records get the room left first: the ones getRoutes would list. */
const rank = (state: RecordState): number => (state.kind === 'listed' ? 0 : 1);
