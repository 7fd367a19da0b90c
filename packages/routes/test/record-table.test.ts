import { expect } from 'chai';
import { RecordTable, type RecordState } from '../src/chain/record-table.js';
import type { RouteEntry } from '../src/index.js';
import { newIdentity } from '@rollup-router/test-support/solana';

const listed = (identity = newIdentity()): RecordState & { entry: RouteEntry } => ({
  kind: 'listed',
  entry: { identity, fqdn: 'https://er.example.com', baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' },
});
const closed: RecordState = { kind: 'closed' };
const draining: RecordState = { kind: 'unlisted', why: 'status Draining', skipped: false };

describe('chain record table: reads and notifications ordered by slot', () => {
  it('ignores a notification older than what it holds', () => {
    const table = new RecordTable();
    const a = listed();
    expect(table.apply('A', a, 10n)).to.equal(true);
    expect(table.apply('A', closed, 9n)).to.equal(false);
    expect(table.entries()).to.deep.equal([a.entry]);
    expect(table.apply('A', draining, 11n)).to.equal(true);
    expect(table.entries()).to.deep.equal([]);
  });

  it('a full read answered late does not bring back a record closed after it', () => {
    const table = new RecordTable();
    const a = listed();
    table.apply('A', closed, 20n);
    table.applyFullRead(new Map([['A', a]]), 15n);
    expect(table.entries()).to.deep.equal([]);
    expect(table.isLive('A')).to.equal(false);
  });

  it('a full read drops what it does not list, unless something newer than the read says otherwise', () => {
    const table = new RecordTable();
    const [old, fresh, kept] = [listed(), listed(), listed()];
    table.apply('OLD', old, 5n);
    table.apply('FRESH', fresh, 30n);
    table.applyFullRead(new Map([['KEPT', kept]]), 20n);
    expect(table.liveAddresses().sort()).to.deep.equal(['FRESH', 'KEPT']);
  });

  it('lists Active records only, ordered by identity whatever the arrival order', () => {
    const table = new RecordTable();
    const [b, a] = [listed('B'.repeat(32)), listed('A'.repeat(32))];
    table.apply('1', b, 1n);
    table.apply('2', draining, 1n);
    table.apply('3', a, 1n);
    expect(table.entries()).to.deep.equal([a.entry, b.entry]);
  });
});

describe('chain record table: removals are remembered', () => {
  it('a late full read answered at a slot older than a removal does not list the node again', () => {
    const table = new RecordTable();
    const a = listed();
    table.apply('A', a, 10n);
    table.apply('A', closed, 20n);
    // A newer full read no longer lists it: the table drops the closed row.
    table.applyFullRead(new Map(), 25n);
    // A read started before the removal and answered late (a lagging RPC node).
    table.applyFullRead(new Map([['A', a]]), 15n);
    expect(table.entries()).to.deep.equal([]);
    expect(table.isLive('A')).to.equal(false);
    // Nor does a late notification older than the removal.
    expect(table.apply('A', a, 19n)).to.equal(false);
    expect(table.entries()).to.deep.equal([]);
  });

  it("a late full read answered at the removal's own slot does not list the node again", () => {
    // As validator A did: the Unregister was notified at slot 140, and a read answered "at" 140
    // (the node still processing that slot) still listed the record.
    const table = new RecordTable();
    const a = listed();
    table.apply('A', a, 121n);
    table.apply('A', closed, 140n);
    table.applyFullRead(new Map(), 159n);
    table.applyFullRead(new Map([['A', a]]), 140n);
    expect(table.entries()).to.deep.equal([]);
    expect(table.apply('A', a, 140n)).to.equal(false);
  });

  it('a full read that no longer lists a record counts as its removal at that slot', () => {
    const table = new RecordTable();
    const a = listed();
    table.apply('A', a, 10n);
    table.applyFullRead(new Map(), 30n);
    table.applyFullRead(new Map([['A', a]]), 20n);
    expect(table.entries()).to.deep.equal([]);
  });

  it('a registration newer than the removal lists it again', () => {
    const table = new RecordTable();
    const a = listed();
    table.apply('A', a, 10n);
    table.apply('A', closed, 20n);
    expect(table.apply('A', a, 21n)).to.equal(true);
    expect(table.entries()).to.deep.equal([a.entry]);
  });

  it('holds a bounded number of removals and, past it, ignores older information about unknown accounts', () => {
    const table = new RecordTable({ maxRecords: 10, maxRemovals: 3 });
    const a = listed();
    table.apply('A', a, 10n);
    table.apply('A', closed, 20n);
    for (const [i, name] of ['B', 'C', 'D'].entries()) {
      table.apply(name, listed(), 21n + BigInt(i));
      table.apply(name, closed, 30n + BigInt(i));
    }
    // A's removal was the oldest one and is forgotten; what it guarded stays guarded.
    expect(table.removalsHeld()).to.equal(3);
    table.applyFullRead(new Map([['A', a]]), 15n);
    expect(table.entries()).to.deep.equal([]);
    expect(table.apply('A', a, 40n)).to.equal(true);
  });
});

describe('chain record table: at most maxRecords records followed', () => {
  it('past the cap, a new record is not taken, and counted', () => {
    const table = new RecordTable({ maxRecords: 2 });
    const [a, b, c] = [listed('A'.repeat(32)), listed('B'.repeat(32)), listed('C'.repeat(32))];
    expect(table.apply('1', a, 1n)).to.equal(true);
    expect(table.apply('2', b, 1n)).to.equal(true);
    expect(table.apply('3', c, 2n)).to.equal(false);
    expect(table.entries()).to.deep.equal([a.entry, b.entry]);
    expect(table.liveAddresses().sort()).to.deep.equal(['1', '2']);
    expect(table.notFollowed()).to.equal(1);
    // The same record again is still one.
    table.apply('3', c, 3n);
    expect(table.notFollowed()).to.equal(1);
  });

  it('a flood of new registrations in a full read does not evict the records already followed', () => {
    const table = new RecordTable({ maxRecords: 2 });
    const [z, y] = [listed('Z'.repeat(32)), listed('Y'.repeat(32))];
    table.apply('z', z, 1n);
    table.apply('y', y, 1n);
    const flood = new Map<string, RecordState>([
      ['z', z],
      ['y', y],
    ]);
    for (let i = 0; i < 50; i++) flood.set(`a${i}`, listed('1'.repeat(32) + String(i)));
    table.applyFullRead(flood, 5n);
    expect(table.entries()).to.deep.equal([y.entry, z.entry]);
    expect(table.notFollowed()).to.equal(50);
  });

  it('chooses deterministically when there is room for some: listed records first, then by address', () => {
    const pick = (order: [string, RecordState][]): string[] => {
      const table = new RecordTable({ maxRecords: 2 });
      table.applyFullRead(new Map(order), 1n);
      return table.liveAddresses().sort();
    };
    const rows: [string, RecordState][] = [
      ['d', draining],
      ['c', listed()],
      ['b', draining],
      ['a', listed()],
      ['e', listed()],
    ];
    expect(pick(rows)).to.deep.equal(['a', 'c']);
    expect(pick([...rows].reverse())).to.deep.equal(['a', 'c']);
  });

  it('a removal makes room, which the next full read fills', () => {
    const table = new RecordTable({ maxRecords: 1 });
    const [a, b] = [listed(), listed()];
    table.applyFullRead(
      new Map([
        ['a', a],
        ['b', b],
      ]),
      1n,
    );
    expect(table.liveAddresses()).to.deep.equal(['a']);
    table.apply('a', closed, 2n);
    table.applyFullRead(new Map([['b', b]]), 3n);
    expect(table.liveAddresses()).to.deep.equal(['b']);
    expect(table.notFollowed()).to.equal(0);
  });
});
