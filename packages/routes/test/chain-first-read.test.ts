import { expect } from 'chai';
import { encodeErRecord, MDP_PROGRAM_ID, RouteRegistry, type ErRecordV0 } from '../src/index.js';
import { memoryLog } from '@rollup-router/test-support/http';
import { ProgramAccountsNode } from '@rollup-router/test-support/program-accounts-node';
import { newIdentity } from '@rollup-router/test-support/solana';

const record = (addr: string, over: Partial<ErRecordV0> = {}): Uint8Array =>
  encodeErRecord({
    identity: newIdentity() as ErRecordV0['identity'],
    status: 0,
    blockTimeMs: 50,
    baseFee: 5000,
    features: new Uint8Array(32),
    loadAverage: 0,
    countryCode: 'DEU',
    addr,
    ...over,
  });

const NOT_HTTPS =
  'route entry refused: fqdn: must be an https:// URL: http:// nodes are listed only with allowInsecure (must match pattern "^https://") (pattern)';

describe('routes.chain: the first read of the registry in one log line', () => {
  let node: ProgramAccountsNode | undefined;
  let registry: RouteRegistry | undefined;
  afterEach(async () => {
    await registry?.stop();
    await node?.close();
    registry = node = undefined;
  });

  async function readRegistry(accounts: Uint8Array[]) {
    node = await ProgramAccountsNode.start(
      MDP_PROGRAM_ID,
      accounts.map((data) => ({ pubkey: newIdentity(), data })),
    );
    const logs = memoryLog();
    registry = new RouteRegistry({ allowInsecure: false, chain: { url: node.url } });
    await registry.start({ log: logs.log });
    return { logs, registry };
  }

  it('warns how many records of how many were refused, counted by reason, and lists the others', async () => {
    const unknownVariant = record('https://v1.example');
    unknownVariant[0] = 1;
    const { logs, registry } = await readRegistry([
      record('https://one.example'),
      record('http://not-https.example'),
      record('https://two.example'),
      new Uint8Array([...record('https://trailing.example'), 0]),
      record('https://draining.example', { status: 1 }),
      record('http://also-not-https.example'),
      unknownVariant,
    ]);
    expect(registry.available().map((e) => e.fqdn)).to.have.members([
      'https://one.example',
      'https://two.example',
    ]);
    const summary = logs.lines.filter((l) => String(l.msg).startsWith('chain registry read'));
    expect(
      summary.map(({ level, msg, records, refused }) => ({ level, msg, records, refused })),
    ).to.deep.equal([
      {
        level: 40,
        msg: `chain registry read: 4 of 7 records refused (2: ${NOT_HTTPS}; 1: malformed V0 record: 1 bytes after it; 1: unknown record variant 1)`,
        records: 7,
        refused: {
          [NOT_HTTPS]: 2,
          'malformed V0 record: 1 bytes after it': 1,
          'unknown record variant 1': 1,
        },
      },
    ]);
  });

  it('says the read at info, with no warning, when every record could be listed', async () => {
    const { logs } = await readRegistry([record('https://one.example'), record('https://two.example')]);
    const summary = logs.lines.filter((l) => String(l.msg).startsWith('chain registry read'));
    expect(summary.map(({ level, msg, records }) => ({ level, msg, records }))).to.deep.equal([
      { level: 30, msg: 'chain registry read', records: 2 },
    ]);
  });
});
