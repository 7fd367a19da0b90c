// The bench's own arithmetic and accounting, which every figure of `npm run bench`
// rests on: ratios paired round by round, Prometheus counters read back, goals judged,
// and CPU time from /proc attributed to the right process (a real child that burns a
// known amount of CPU).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';

// The bench is plain ESM JavaScript without declarations: loaded by path, typed here.
interface Sample {
  reqPerSec: number;
  latencyMs: { p99: number };
  cpuUsPerRequest?: number;
}
interface Row {
  id: string;
  rounds: number;
  samples: (Sample | undefined)[];
  vs?: { id: string; ratio: number; p99Ratio: number }[];
}
interface Goal {
  name: string;
  ratio: number | null;
  met: boolean | null;
  reason?: string;
}
interface Window {
  usedBy(pid: number): number | undefined;
  othersUs: number;
  wallUs: number;
  othersShare: number;
  topOthers: { pid: number; name: string; us: number }[];
}
const load = (file: string): Promise<Record<string, (...args: never[]) => unknown>> =>
  import(new URL(`../bench/lib/${file}`, import.meta.url).href) as Promise<
    Record<string, (...args: never[]) => unknown>
  >;

const sample = (reqPerSec: number, p99 = 1): Sample => ({ reqPerSec, latencyMs: { p99 } });

describe('bench: measurement', () => {
  it('pairs a row with its baseline round by round: the median of the ratios, not the ratio of the medians', async () => {
    const { pairWithBaselines } = (await load('summary.mjs')) as unknown as {
      pairWithBaselines(rows: Row[], cases: Map<string, { vs?: string[] }>): Row[];
    };
    // The machine slows down in round 3: both rows move together there.
    const ours: Row = { id: 'ours', rounds: 3, samples: [sample(10), sample(12), sample(3)] };
    const base: Row = { id: 'base', rounds: 3, samples: [sample(20), sample(10), sample(4)] };
    const cases = new Map([
      ['ours', { vs: ['base'] }],
      ['base', {}],
    ]);
    const vs = pairWithBaselines([ours, base], cases)[0]?.vs ?? [];
    // Per round: 0.5, 1.2, 0.75 -> median 0.75; medians alone would give 10 / 10 = 1.
    expect(vs).to.have.length(1);
    expect(vs[0]?.id).to.equal('base');
    expect(vs[0]?.ratio).to.be.closeTo(0.75, 1e-9);
  });

  it('leaves out the rounds one of the two rows did not measure', async () => {
    const { pairWithBaselines } = (await load('summary.mjs')) as unknown as {
      pairWithBaselines(rows: Row[], cases: Map<string, { vs?: string[] }>): Row[];
    };
    const ours: Row = { id: 'ours', rounds: 2, samples: [sample(10), undefined, sample(30, 6)] };
    const base: Row = { id: 'base', rounds: 3, samples: [sample(10), sample(1), sample(10, 2)] };
    const cases = new Map([
      ['ours', { vs: ['base'] }],
      ['base', {}],
    ]);
    const vs = pairWithBaselines([ours, base], cases)[0]?.vs ?? [];
    expect(vs[0]?.ratio).to.equal(2); // rounds 1 and 3: 1 and 3
    expect(vs[0]?.p99Ratio).to.equal(2); // 1 and 3
  });

  it('reads a Prometheus counter summed by one label', async () => {
    const { counterByLabel } = (await load('evidence.mjs')) as unknown as {
      counterByLabel(text: string, metric: string, label: string): Record<string, number>;
    };
    const text = [
      '# HELP rollup_router_upstream_requests_total HTTP requests to upstream Solana nodes',
      '# TYPE rollup_router_upstream_requests_total counter',
      'rollup_router_upstream_requests_total{upstream="http://a",outcome="ok"} 5',
      'rollup_router_upstream_requests_total{upstream="http://b",outcome="ok"} 7',
      'rollup_router_upstream_requests_total{upstream="http://b",outcome="aborted"} 2',
      'rollup_router_upstream_requests_total_other{outcome="ok"} 100',
    ].join('\n');
    expect(counterByLabel(text, 'rollup_router_upstream_requests_total', 'outcome')).to.deep.equal({
      ok: 12,
      aborted: 2,
    });
  });

  it('judges each goal from the paired ratio, and says why one could not be judged', async () => {
    const { computeGoals } = (await load('goals.mjs')) as unknown as {
      computeGoals(rows: Partial<Row & { absent: string }>[]): Goal[];
    };
    const goals = computeGoals([
      { id: 'prod.getRoutes', rounds: 3, vs: [{ id: 'r.getRoutes', ratio: 0.72, p99Ratio: 2.5 }] },
      { id: 'r.getRoutes', rounds: 3, vs: [] },
      { id: 'c', rounds: 3, vs: [{ id: 'b', ratio: 0.9, p99Ratio: 1 }] },
      { id: 'b', rounds: 3, vs: [] },
      { id: 'v.statuses-1', absent: 'peers not running' },
    ]);
    const byName = (part: string): Goal | undefined => goals.find((g) => g.name.includes(part));
    expect(byName('getRoutes, production')).to.include({ ratio: 0.72, met: true });
    expect(byName("p99 at 50 connections ÷ Rust router's p99, getRoutes")).to.include({
      ratio: 2.5,
      met: false,
    });
    expect(byName('Express adapter')).to.include({ ratio: 0.9, met: false });
    const validator = byName('validator A answering itself');
    expect(validator?.met).to.equal(null);
    expect(validator?.reason).to.include('v.statuses-1 absent');
  });

  it('attributes CPU time from /proc to the process that used it, and to "others" when the bench does not know it', async function () {
    if (process.platform !== 'linux') this.skip();
    this.timeout(30_000);
    const { cpuWindow, contentionNote } = (await load('contention.mjs')) as unknown as {
      cpuWindow(): { stop(known: number[]): Window };
      contentionNote(w: Window): string | undefined;
    };
    // A child that burns 400 ms of its own CPU time, however busy the machine is, and
    // stays up (its /proc entry with it) until the window is read.
    const children: ReturnType<typeof spawn>[] = [];
    const burn = async (): Promise<number> => {
      const child = spawn(process.execPath, [
        '-e',
        // Checks the clock once per million additions: user time, hardly any system time.
        'process.stdin.once("data", () => { const t = process.cpuUsage(); let x = 0; ' +
          'while (process.cpuUsage(t).user < 400000) for (let k = 0; k < 1e6; k++) x += k; ' +
          'process.stdout.write(`done ${x > 0}\\n`); });',
      ]);
      children.push(child);
      child.stdin.write('go\n');
      await once(child.stdout, 'data');
      return child.pid ?? 0;
    };
    try {
      let window = cpuWindow();
      const known = await burn();
      const seen = window.stop([known]);
      expect(seen.usedBy(known)).to.be.at.least(300_000); // 10 ms ticks: 400 ms, give or take
      window = cpuWindow();
      const unknown = await burn();
      const other = window.stop([]);
      expect(other.usedBy(unknown)).to.equal(undefined);
      expect(other.othersUs).to.be.at.least(300_000);
      expect(contentionNote(other)).to.match(/other processes used \d+% of a CPU/);
    } finally {
      for (const c of children) c.kill();
    }
  });
});

describe('bench options', () => {
  const subscriptionsFor = async (argv: string[]): Promise<unknown> => {
    const { parseOptions } = (await load('options.mjs')) as unknown as {
      parseOptions(argv: string[], env: Record<string, string>): { subscriptions: boolean };
    };
    return parseOptions(argv, {}).subscriptions;
  };

  it('runs the subscription figures in the full run, not in --quick unless asked, never with --no-subscriptions', async () => {
    expect(await subscriptionsFor([])).to.equal(true);
    expect(await subscriptionsFor(['--quick'])).to.equal(false);
    expect(await subscriptionsFor(['--quick', '--subscriptions'])).to.equal(true);
    expect(await subscriptionsFor(['--no-subscriptions'])).to.equal(false);
    expect(await subscriptionsFor(['--only', 'getRoutes'])).to.equal(false);
  });
});
