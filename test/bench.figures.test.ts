// The bench's delegation router rows, relay figures and guard figure, run briefly on the
// real peers: the machinery is checked (rows measured, paired, reported; sockets and
// acknowledgements counted), never the timings.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const VALIDATOR = 'http://127.0.0.1:17799';

const load = async <T>(file: string): Promise<T> =>
  (await import(new URL(`../bench/lib/${file}`, import.meta.url).href)) as T;

interface Relay {
  error?: string;
  memory: { subscriptions: number; heapBytesPerSubscription: number; residentBytesPerSubscription: number };
  upstreamSockets: { live: number; accepted: number; acks: number };
}
interface Guard {
  error?: string;
  rounds: number;
  withoutUs: number;
  withUs: number;
  addedUs: number;
  met: boolean;
}

describe('bench: the delegation router rows, the relay and the guard figures', function () {
  this.timeout(180_000);

  it('--only selects them, --quick keeps the sendTransaction group and the guard, and each figure has its flag', async () => {
    const { parseOptions } = await load<{
      parseOptions(argv: string[], env: Record<string, string>): Record<string, unknown>;
    }>('options.mjs');
    const { selectGroups } = await load<{
      selectGroups(o: object, cases: Map<string, unknown>): { name: string; members: string[] }[];
    }>('groups.mjs');
    expect(parseOptions([], {})).to.include({ relay: true, guard: true });
    expect(parseOptions(['--quick'], {})).to.include({ relay: false, guard: true });
    expect(parseOptions(['--quick', '--relay', '--no-guard'], {})).to.include({ relay: true, guard: false });
    expect(parseOptions(['--only', 'relay'], {})).to.include({
      relay: true,
      guard: false,
      subscriptions: false,
    });
    const quick = selectGroups({ quick: true }, new Map()).flatMap((g) => g.members);
    expect(quick).to.include.members([
      'dlg.sendTransaction',
      'v.sendTransaction',
      'p.sendTransaction',
      'r.sendTransaction',
    ]);
    expect(quick).to.not.include('dlg.blockhash-empty');
    const only = selectGroups({ quick: false, only: /blockhash/ }, new Map());
    expect(only.flatMap((g) => g.members)).to.deep.equal([
      'dlg.blockhash-empty',
      'r.blockhash-empty',
      'dlg.blockhash-account',
      'r.blockhash-account',
    ]);
  });

  it('the guard figure: both Rpcs timed in alternating rounds, the difference judged against 1 µs', async () => {
    const { measureGuard, guardLines } = await load<{
      measureGuard(log: (l: string) => void, o: object): Promise<Guard>;
      guardLines(g: Guard): string;
    }>('dispatch.mjs');
    const g = await measureGuard(() => undefined, { rounds: 4, calls: 2000 });
    expect(g.error).to.equal(undefined);
    expect(g.rounds).to.equal(4);
    expect(g.withoutUs).to.be.above(0);
    expect(g.withUs).to.be.above(0);
    expect(g.met).to.equal(g.addedUs < 1);
    expect(guardLines(g)).to.match(
      /the guard costs [+-]\d+\.\d{3} µs per call \(goal < 1 µs: (met|MISSED)\)$/,
    );
  });

  it('the reference server target answers a memory reading asked the moment it says ready, every time', async () => {
    const { startTarget } = await load<{
      startTarget(
        script: string,
        args: string[],
        o: object,
      ): Promise<{ memory(): Promise<{ heapUsed: number }>; stop(): Promise<void> }>;
    }>('processes.mjs');
    // The relay figure reads memory at once: a signal that beat its handler killed the target.
    for (let start = 0; start < 8; start++) {
      const target = await startTarget('server.mjs', ['--upstream', 'http://127.0.0.1:9'], {
        nodeArgs: ['--expose-gc'],
      });
      try {
        expect((await target.memory()).heapUsed, `start ${start}`).to.be.above(0);
      } finally {
        await target.stop();
      }
    }
  });

  describe('on the real peers', () => {
    before(async function () {
      await skipUnlessValidatorA(this, VALIDATOR);
    });

    it('relay: every subscription acknowledged upstream through one counted socket, memory read per subscription', async () => {
      const { measureRelay, relayLines } = await load<{
        measureRelay(log: (l: string) => void, o: object): Promise<Relay>;
        relayLines(r: Relay): string;
      }>('subscriptions.mjs');
      const r = await measureRelay(() => undefined, { sockets: 20, perSocket: 5 });
      expect(r.error, r.error).to.equal(undefined);
      expect(r.memory.subscriptions).to.equal(100);
      expect(r.upstreamSockets).to.include({ live: 1, accepted: 1 });
      expect(r.upstreamSockets.acks).to.be.at.least(100);
      expect(Number.isFinite(r.memory.heapBytesPerSubscription)).to.equal(true);
      expect(Number.isFinite(r.memory.residentBytesPerSubscription)).to.equal(true);
      expect(relayLines(r)).to.match(/upstream sockets at 100 subscriptions: 1 open \(1 opened in all;/);
    });

    it('sendTransaction and getBlockhashForAccounts rows: measured in one run, paired, the added latency and the goal printed', async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          'bench/run.mjs',
          '--only',
          'sendTransaction|blockhash',
          '--rounds',
          '1',
          '--duration',
          '0.3',
          '--warmup',
          '0.2',
          '--round-warmup',
          '0.1',
          '--connections',
          '4',
          '--no-guard',
          '--no-relay',
        ],
        { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      );
      for (const id of [
        'dlg.sendTransaction',
        'v.sendTransaction',
        'p.sendTransaction',
        'r.sendTransaction',
        'dlg.blockhash-account',
      ])
        expect(stdout, id).to.match(
          new RegExp(`^${id.replace('.', '\\.')} .* [\\d,]+ +[\\d,]+-[\\d,]+ `, 'm'),
        );
      expect(stdout).to.match(/^dlg\.blockhash-empty .*x r\.blockhash-empty \(p99 \d+\.\d+x\)/m);
      const ms = '[+-]\\d+\\.\\d{3} ms';
      expect(stdout).to.match(
        new RegExp(`dlg\\.sendTransaction vs v\\.sendTransaction: p50 ${ms}, p99 ${ms}`),
      );
      expect(stdout).to.match(new RegExp(`r\\.sendTransaction vs v\\.sendTransaction: p50 ${ms}, p99 ${ms}`));
      // Node's ceiling for a forwarding hop, in the same rounds: ours is read against it too.
      expect(stdout).to.match(new RegExp(`p\\.sendTransaction vs v\\.sendTransaction: p50 ${ms}, p99 ${ms}`));
      expect(stdout).to.match(
        new RegExp(`dlg\\.sendTransaction vs p\\.sendTransaction: p50 ${ms}, p99 ${ms}`),
      );
      expect(stdout).to.match(
        /sendTransaction: latency added to validator A direct, p50 .* -?\d+\.\d\d ms +<= 1 ms +(met|MISSED)/,
      );
    });
  });
});
