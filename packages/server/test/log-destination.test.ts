import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { expect } from 'chai';
import { createLogger } from '@rollup-router/core';
import { logDestination } from '../src/logger.js';

describe('logDestination', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'server-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every call line whole and in order, though in chunks smaller than the lines written', async () => {
    const file = join(dir, 'calls.log');
    const destination = logDestination(file);
    await once(destination, 'ready');
    const log = createLogger({ level: 'info', destination });
    // ~200 KiB of lines, some with multi-byte text: many 2 KiB chunks, none splitting a line.
    for (let i = 0; i < 2000; i++) {
      // A line longer than a chunk (an error with a long stack, say) is written whole too.
      if (i === 1000) log.error({ reqId: 'long', detail: 'x'.repeat(10_000) }, 'long line');
      log.info(
        { reqId: `req-${i}`, method: i % 7 === 0 ? 'méthode·ü' : 'getRoutes', ms: i / 1000, code: 0 },
        'call',
      );
    }
    destination.flushSync();
    const all = readFileSync(file, 'utf8').trimEnd().split('\n');
    const long = all.splice(1000, 1)[0]!;
    expect((JSON.parse(long) as { detail: string }).detail).to.have.length(10_000);
    const lines = all;
    expect(lines).to.have.length(2000);
    lines.forEach((line, i) => {
      const parsed = JSON.parse(line) as { reqId: string; method: string; msg: string };
      expect(parsed.reqId).to.equal(`req-${i}`);
      expect(parsed.method).to.equal(i % 7 === 0 ? 'méthode·ü' : 'getRoutes');
      expect(parsed.msg).to.equal('call');
    });
  });
});
