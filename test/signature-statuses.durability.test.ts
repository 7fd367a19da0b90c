// What survives a restart: statuses learned from an upstream and statuses imported from a
// file, served over HTTP by a new server on the same SQLite file with every upstream down.
import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { importStatuses, signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { randomSignatures, status } from '@rollup-router/test-support/solana';
import { tempDir } from '@rollup-router/test-support/temp-dir';
import { serve } from '@rollup-router/test-support/serve';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';

const call = (signatures: string[]) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'getSignatureStatuses',
  params: [signatures],
});

describe('getSignatureStatuses over HTTP: durability', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  it('a finalized status learned from an upstream is served after a restart with the upstream gone', async () => {
    const upstream = await SolanaStandIn.start(900);
    const [learned, imported] = randomSignatures(2);
    upstream.statuses.set(learned!, status('finalized', 800, { InstructionError: [0, { Custom: 1 }] }));
    const path = tmp.file('statuses.db');
    const options = { store: { path }, upstreams: [{ url: upstream.url }] };

    const before = await serve([signatureStatusesPlugin(options)]);
    const first = await before.post(call([learned!]), '/getSignatureStatuses');
    await before.close();
    await upstream.close();

    const file = tmp.file('import.jsonl');
    writeFileSync(
      file,
      JSON.stringify({ signature: imported, slot: 700, err: null, confirmationStatus: 'finalized' }) + '\n',
    );
    expect(await importStatuses(path, file)).to.deep.equal({ lines: 1, imported: 1, alreadyPresent: 0 });

    const after = await serve([signatureStatusesPlugin(options)]);
    try {
      const again = await after.post(call([learned!, imported!]), '/getSignatureStatuses');
      const value = (again.json as { result: { value: unknown[] } }).result.value;
      expect(value[0]).to.deep.equal((first.json as { result: { value: unknown[] } }).result.value[0]);
      expect(value[1]).to.deep.equal(status('finalized', 700));
      expect(again.json).to.have.property('error', null);
    } finally {
      await after.close();
    }
  });
});
