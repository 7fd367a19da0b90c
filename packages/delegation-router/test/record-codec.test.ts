import { expect } from 'chai';
import fc from 'fast-check';
import { address, getAddressDecoder } from '@solana/kit';
import {
  decodeDelegationRecord,
  encodeDelegationRecord,
  DELEGATION_RECORD_SIZE,
  type DelegationRecord,
} from '../src/index.js';

const addressOf = (bytes: Uint8Array) => getAddressDecoder().decode(bytes);
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const record = fc.record({
  authority: fc.uint8Array({ minLength: 32, maxLength: 32 }).map(addressOf),
  owner: fc.uint8Array({ minLength: 32, maxLength: 32 }).map(addressOf),
  delegationSlot: u64,
  lamports: u64,
  commitFrequencyMs: u64,
});

describe('delegation record codec', () => {
  it("reads the program's layout: discriminator 100 as a u64, authority, owner, three u64s", () => {
    const authority = address('DDyPxc3JxDgfvnbPbKQYHUSNV9HT64W6RUXGd3rEs22y');
    const owner = address('11111111111111111111111111111111');
    // Written by hand as bytemuck lays out #[repr(C)] DelegationRecord after its 8-byte discriminator.
    const bytes = new Uint8Array(96);
    const view = new DataView(bytes.buffer);
    view.setBigUint64(0, 100n, true);
    bytes.set(
      encodeDelegationRecord({
        authority,
        owner,
        delegationSlot: 0n,
        lamports: 0n,
        commitFrequencyMs: 0n,
      }).subarray(8, 72),
      8,
    );
    view.setBigUint64(72, 7n, true);
    view.setBigUint64(80, 1_000_000n, true);
    view.setBigUint64(88, 30_000n, true);
    expect(decodeDelegationRecord(bytes)).to.deep.equal({
      ok: true,
      record: { authority, owner, delegationSlot: 7n, lamports: 1_000_000n, commitFrequencyMs: 30_000n },
    });
  });

  it('round-trips every record', () => {
    fc.assert(
      fc.property(record, (r: DelegationRecord) => {
        const bytes = encodeDelegationRecord(r);
        expect(bytes.length).to.equal(DELEGATION_RECORD_SIZE);
        expect(decodeDelegationRecord(bytes)).to.deep.equal({ ok: true, record: r });
      }),
    );
  });

  it('never throws, and refuses anything but exactly one record', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const decoded = decodeDelegationRecord(bytes);
        if (bytes.length !== DELEGATION_RECORD_SIZE) expect(decoded.ok).to.equal(false);
      }),
    );
  });

  it('refuses another account kind of the program (its discriminator) and a truncated record', () => {
    const bytes = encodeDelegationRecord({
      authority: address('DDyPxc3JxDgfvnbPbKQYHUSNV9HT64W6RUXGd3rEs22y'),
      owner: address('11111111111111111111111111111111'),
      delegationSlot: 1n,
      lamports: 2n,
      commitFrequencyMs: 3n,
    });
    const metadata = bytes.slice();
    metadata[0] = 102;
    expect(decodeDelegationRecord(metadata)).to.deep.include({ ok: false });
    expect((decodeDelegationRecord(metadata) as { reason: string }).reason).to.match(/discriminator 102/);
    expect((decodeDelegationRecord(bytes.subarray(0, 95)) as { reason: string }).reason).to.match(/95 bytes/);
  });
});
