import { expect } from 'chai';
import fc from 'fast-check';
import { decodeErRecord, deriveWsUrl, encodeErRecord, type ErRecordV0 } from '../src/index.js';

// Validator B's record on validator A, as issue 9 captured it (103 bytes).
const CAPTURED =
  'ALGvU8yzChwwdnkloXMeSV9Z/0QKmbcGQFgwUVqHXpK1ADIAiBMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABERVUWAAAAaHR0cDovLzEyNy4wLjAuMToxODg5OQ==';
const captured = (): Uint8Array => new Uint8Array(Buffer.from(CAPTURED, 'base64'));

describe('MDP record decoder', () => {
  it('decodes the captured record of validator B field by field', () => {
    const bytes = captured();
    expect(bytes.length).to.equal(103);
    const decoded = decodeErRecord(bytes);
    expect(decoded.ok).to.equal(true);
    const record = (decoded as { record: ErRecordV0 }).record;
    expect(record).to.deep.include({
      status: 0,
      blockTimeMs: 50,
      baseFee: 5000,
      loadAverage: 0,
      countryCode: 'DEU',
      addr: 'http://127.0.0.1:18899',
    });
    // Bytes 1..33, base58 on the wire (checked with bs58 by hand).
    expect(record.identity).to.equal('CxcDvpJ25T1MzeBcvNVNqHipBfz5NiheS9oXviPD8aD2');
    expect(Buffer.from(record.features)).to.deep.equal(Buffer.alloc(32));
    expect(Buffer.from(encodeErRecord(record))).to.deep.equal(Buffer.from(bytes));
  });

  it('refuses truncated bytes at every length, naming why, without throwing', () => {
    const bytes = captured();
    for (let length = 0; length < bytes.length; length++) {
      const decoded = decodeErRecord(bytes.subarray(0, length));
      expect(decoded.ok, `length ${length}`).to.equal(false);
      expect((decoded as { reason: string }).reason).to.match(length === 0 ? /empty/ : /malformed/);
    }
  });

  it('refuses an unknown variant, trailing bytes and an unknown status', () => {
    const v1 = captured();
    v1[0] = 1;
    expect(decodeErRecord(v1)).to.deep.equal({ ok: false, reason: 'unknown record variant 1' });
    const longer = new Uint8Array([...captured(), 0]);
    expect(decodeErRecord(longer)).to.deep.equal({
      ok: false,
      reason: 'malformed V0 record: 1 bytes after it',
    });
    const status = captured();
    status[33] = 3;
    expect(decodeErRecord(status)).to.deep.equal({ ok: false, reason: 'unknown status 3' });
  });

  it('never throws, whatever the bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const decoded = decodeErRecord(bytes);
        return typeof decoded.ok === 'boolean';
      }),
      { numRuns: 2000 },
    );
    // Near-valid records: the captured one with random bytes overwritten.
    fc.assert(
      fc.property(fc.nat(102), fc.uint8Array({ minLength: 1, maxLength: 8 }), (at, patch) => {
        const bytes = captured();
        bytes.set(patch.subarray(0, bytes.length - at), at);
        return typeof decodeErRecord(bytes).ok === 'boolean';
      }),
      { numRuns: 2000 },
    );
  });
});

describe('websocket URL derived from the RPC URL', () => {
  it('follows @solana/web3.js: http→ws, https→wss, port + 1 when named', () => {
    expect(deriveWsUrl('https://api.devnet.solana.com')).to.equal('wss://api.devnet.solana.com');
    expect(deriveWsUrl('http://127.0.0.1:17799')).to.equal('ws://127.0.0.1:17800');
    expect(deriveWsUrl('https://rpc.example.com:8443/path?api-key=k')).to.equal(
      'wss://rpc.example.com:8444/path?api-key=k',
    );
    expect(deriveWsUrl('http://[::1]:8899/')).to.equal('ws://[::1]:8900/');
  });

  it('keeps user info for the same host, and its `:` is no port', () => {
    expect(deriveWsUrl('http://reader:s3cret@127.0.0.1:17799')).to.equal(
      'ws://reader:s3cret@127.0.0.1:17800',
    );
    expect(deriveWsUrl('https://reader:8443@rpc.example.com/k')).to.equal(
      'wss://reader:8443@rpc.example.com/k',
    );
    expect(deriveWsUrl('https://a%40b:p@ss@rpc.example.com:8443')).to.equal(
      'wss://a%40b:p@ss@rpc.example.com:8444',
    );
  });
});
