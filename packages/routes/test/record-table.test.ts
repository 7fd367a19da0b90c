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
