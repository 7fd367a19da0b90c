import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { createLogger, logDestination } from '../src/logger.js';

describe('logDestination', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'core-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const flushMs of [0, 100]) {
    it(`writes every call line whole and in order, though in chunks smaller than the lines written (flushMs ${flushMs})`, async () => {
      await everyLineWhole(dir, flushMs);
    });
  }

  it('logFlushMs 0: each line is in the file as soon as it is logged', async () => {
    const { file, destination, log } = await openLog(dir, 0);
    for (let i = 0; i < 3; i++) {
      log.info({ reqId: `now-${i}`, method: 'getRoutes', ms: 0.01, code: 0 }, 'call');
      expect(reqIds(readFileSync(file, 'utf8'))).to.deep.equal(
        Array.from({ length: i + 1 }, (_, j) => `now-${j}`),
      );
    }
    destination.end();
  });

  it('batches lines: nothing is written until 4 KiB are pending, the flush interval passes or flush is called', async () => {
    // An interval no test waits for: only flushSync can write these lines.
    const { file, destination, log } = await openLog(dir, 600_000);
    for (let i = 0; i < 10; i++) {
      log.info({ reqId: `req-${i}`, method: 'getRoutes', ms: 0.01, code: 0 }, 'call');
      // A write per line would have been handed to the thread pool and done by now.
      await sleep(5);
    }
    expect(readFileSync(file, 'utf8')).to.equal('');
    destination.flushSync();
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).to.have.length(10);
    destination.end();
  });

  it('keeps up with a busy event loop: after each turn at most one batch is still unwritten', async () => {
    const { file, destination, log } = await openLog(dir, 600_000);
    // A loaded server: every event-loop turn answers calls and logs their lines. The
    // asynchronous writer wrote one 2 KiB chunk per turn and fell further behind each turn.
    let logged = 0;
    for (let turn = 0; turn < 200; turn++) {
      for (let i = 0; i < 20; i++) {
        log.info({ reqId: `req-${logged++}`, method: 'getRoutes', ms: 0.01, code: 0 }, 'call');
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const written = readFileSync(file, 'utf8');
    expect(logged - written.split('\n').length).to.be.below(4096 / 100);
    destination.end();
  });

  it('writes a lone line out within the flush interval, with no flush call', async () => {
    const { file, destination, log } = await openLog(dir, 20);
    log.info({ reqId: 'lone', method: 'getRoutes', ms: 0.01, code: 0 }, 'call');
    // Bounded by the test's timeout: the periodic flush writes it.
    while (!readFileSync(file, 'utf8').includes('"reqId":"lone"')) await sleep(10);
    destination.end();
  });

  it('createLogger without a destination: stdout, one batched destination for every such logger, written out on exit', () => {
    const run = runModule(
      "import { createLogger } from '@rollup-router/core';",
      "for (let i = 0; i < 20; i++) createLogger().info({ reqId: `default-${i}` }, 'call');",
      'process.exit(0);',
    );
    // One exit listener for all of them: no MaxListenersExceededWarning.
    expect(run.stderr).to.equal('');
    expect(reqIds(run.stdout)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `default-${i}`));
  });

  it('loses no batched line when the process exits right after logging', () => {
    const file = join(dir, 'calls.log');
    runModule(
      "import { createLogger, logDestination } from '@rollup-router/core';",
      `const destination = logDestination(${JSON.stringify(file)}, 600000);`,
      "destination.once('ready', () => {",
      "  const log = createLogger({ level: 'info', destination });",
      "  for (let i = 0; i < 3; i++) log.info({ reqId: 'exit-' + i }, 'call');",
      '  process.exit(0);',
      '});',
    );
    expect(reqIds(readFileSync(file, 'utf8'))).to.deep.equal(['exit-0', 'exit-1', 'exit-2']);
  });
});

/** A logger on a new destination writing `dir`/calls.log, once the file is open. */
async function openLog(dir: string, flushMs: number) {
  const file = join(dir, 'calls.log');
  const destination = logDestination(file, flushMs);
  await once(destination, 'ready');
  return { file, destination, log: createLogger({ level: 'info', destination }) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the lines as an ES module in a new Node process, which must exit 0. */
function runModule(...lines: string[]): { stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', lines.join('\n')], {
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).to.equal(0);
  return run;
}

/** The reqId of each JSON line of a log's text, in order. */
const reqIds = (text: string): string[] =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { reqId: string }).reqId);

async function everyLineWhole(dir: string, flushMs: number): Promise<void> {
  const { file, destination, log } = await openLog(dir, flushMs);
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
  expect(all).to.have.length(2000);
  all.forEach((line, i) => {
    const parsed = JSON.parse(line) as { reqId: string; method: string; msg: string };
    expect(parsed.reqId).to.equal(`req-${i}`);
    expect(parsed.method).to.equal(i % 7 === 0 ? 'méthode·ü' : 'getRoutes');
    expect(parsed.msg).to.equal('call');
  });
  destination.end();
}
