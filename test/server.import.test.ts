import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  finalized,
  rpc,
  runCli,
  signature,
  standInUpstream,
  startCli,
  tempDir,
  writeJson,
  type StandIn,
  type Status,
} from './server.harness.js';

describe('rollup-router import-statuses', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let upstream: StandIn;
  let config: string;

  beforeEach(async () => {
    tmp = tempDir();
    // An upstream that knows nothing: whatever the server answers for a signature came from the store.
    upstream = await standInUpstream();
    config = writeJson(join(tmp.dir, 'config.json'), {
      statuses: { upstreams: [{ url: upstream.url }], store: { path: join(tmp.dir, 'store.sqlite') } },
    });
  });

  afterEach(async () => {
    await upstream.close();
    tmp.remove();
  });

  const lookup = async (base: string, sigs: string[]) => {
    const r = await rpc(`${base}/`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [sigs],
    });
    return (r.json.result as { value: unknown[] }).value;
  };

  it('imports a JSON Lines file (short and full lines) and the server serves the statuses', async () => {
    const short = signature();
    const full = signature();
    const failed = signature();
    const failedStatus: Status = {
      confirmationStatus: 'finalized',
      confirmations: null,
      err: { InstructionError: [0, { Custom: 1 }] },
      slot: 77,
      status: { Err: { InstructionError: [0, { Custom: 1 }] } },
    };
    const file = join(tmp.dir, 'statuses.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ signature: short, slot: 11, err: null, confirmationStatus: 'finalized' }),
        '',
        JSON.stringify({ signature: full, ...finalized(22) }),
        JSON.stringify({ signature: failed, ...failedStatus }),
      ].join('\n') + '\n',
    );

    const first = await runCli(['import-statuses', file, '--config', config]);
    expect(first.code, first.stderr).to.equal(0);
    expect(JSON.parse(first.stdout)).to.include({ lines: 3, imported: 3, alreadyPresent: 0 });
    // Idempotent: the same file again writes nothing new.
    const again = await runCli(['import-statuses', file, '--config', config]);
    expect(JSON.parse(again.stdout)).to.include({ lines: 3, imported: 0, alreadyPresent: 3 });

    const server = await startCli(['--config', config, '--port', '0']);
    try {
      const unknown = signature();
      expect(await lookup(server.base, [short, full, failed, unknown])).to.deep.equal([
        finalized(11),
        finalized(22),
        failedStatus,
        null,
      ]);
      // Only the unknown one was asked upstream.
      expect(upstream.requestCount).to.equal(1);
    } finally {
      await server.kill();
    }
  });

  it('a bad line rejects the whole file: exit 2 naming the line, nothing imported', async () => {
    const good = signature();
    const file = join(tmp.dir, 'bad.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ signature: good, slot: 1, err: null, confirmationStatus: 'finalized' }),
        JSON.stringify({ signature: signature(), slot: 2, err: null, confirmationStatus: 'finalized' }),
        JSON.stringify({ signature: signature(), slot: 3, err: null, confirmationStatus: 'confirmed' }),
      ].join('\n'),
    );
    const r = await runCli(['import-statuses', file, '--config', config]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('line 3');
    expect(r.stderr).to.include('nothing was imported');

    const server = await startCli(['--config', config, '--port', '0']);
    try {
      expect(await lookup(server.base, [good])).to.deep.equal([null]);
    } finally {
      await server.kill();
    }
  });

  it('a missing file is exit 2', async () => {
    const r = await runCli(['import-statuses', join(tmp.dir, 'absent.jsonl'), '--config', config]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('absent.jsonl');
  });
});
