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

  it('measures a round again, all of its rows, when one noted contention, at most --retry-contended times', async () => {
    type Measured = Sample & { contention?: string };
    const { measureRounds } = (await load('rounds.mjs')) as unknown as {
      measureRounds(
        members: { id: string }[],
        settings: { rounds: number; quietWait: number; retryContended: number },
        log: (line: string) => void,
        measure: (c: { id: string }) => Promise<Measured>,
      ): Promise<{ samples: Map<string, Measured[]>; remeasured: { round: number; contention: string }[] }>;
    };
    const STEAL = 'hypervisor steal 20% of a CPU';
    // Each measurement's req/s is its number in the run; `contended` names a row's k-th measurement.
    const run = async (retryContended: number, contended: string[]) => {
      const measured: string[] = [];
      const settings = { rounds: 3, quietWait: 0, retryContended };
      const result = await measureRounds(
        [{ id: 'a' }, { id: 'b' }],
        settings,
        () => undefined,
        (c) => {
          measured.push(c.id);
          const k = measured.filter((id) => id === c.id).length;
          const contention = contended.includes(`${c.id}#${k}`) ? STEAL : undefined;
          return Promise.resolve({ ...sample(measured.length), contention });
        },
      );
      const reqPerSec = (id: string) => result.samples.get(id)?.map((s) => s.reqPerSec);
      return { measured, reqPerSec, ...result };
    };

    // Off: the contended round is kept as it was measured.
    const off = await run(0, ['b#2']);
    expect(off.measured).to.have.length(6);
    expect(off.remeasured).to.deep.equal([]);
    expect(off.samples.get('b')?.[1]?.contention).to.equal(STEAL);

    // Round 2 sees steal twice: a and b are measured again, back to back, until it is clean.
    const on = await run(3, ['b#2', 'b#3']);
    expect(on.remeasured.map((r) => r.round)).to.deep.equal([2, 2]);
    expect(on.remeasured[0]?.contention).to.equal(`b: ${STEAL}`);
    expect(on.reqPerSec('a')).to.deep.equal([1, 7, 9]);
    expect(on.reqPerSec('b')).to.deep.equal([2, 8, 10]);
    expect(on.samples.get('b')?.some((s) => s.contention)).to.equal(false);

    // At most N times: then the last measurement stands, contention and all.
    const capped = await run(1, ['b#2', 'b#3']);
    expect(capped.remeasured.map((r) => r.round)).to.deep.equal([2]);
    expect(capped.reqPerSec('b')).to.deep.equal([2, 6, 8]);
    expect(capped.samples.get('b')?.[1]?.contention).to.equal(STEAL);
  });

  it('says how much of a CPU the hypervisor stole, counts the rounds measured again, and judges fitness by the goal rows', async () => {
    const { contentionSummary } = (await load('report.mjs')) as unknown as {
      contentionSummary(rows: Record<string, unknown>[], judged?: Set<Record<string, unknown>>): string;
    };
    const row = (group: string, extra: Record<string, unknown>) => ({
      group,
      rounds: 5,
      contendedRounds: 0,
      contention: [],
      othersCpuShareMax: 0.01,
      stealShareMax: 0.02,
      remeasuredRounds: 0,
      ...extra,
    });
    const stolen = contentionSummary([
      row('g1', { contendedRounds: 1, contention: ['hypervisor steal 16% of a CPU'], stealShareMax: 0.16 }),
      row('g1', {}),
    ]);
    expect(stolen).to.match(/^CPU CONTENTION: in 1 of 10 rounds .* \(up to 16% of a CPU\)/);
    // Two rows of one group share its rounds measured again; another group adds its own.
    const clean = contentionSummary([
      row('g1', { remeasuredRounds: 2 }),
      row('g1', { remeasuredRounds: 2 }),
      row('g2', { remeasuredRounds: 1 }),
    ]);
    expect(clean).to.equal(
      'CPU contention: none noted in 15 rounds (others below 5% of a CPU); 3 round(s) measured again after contention (--retry-contended)',
    );
    // Contention left only in a row no goal is judged on: the goals stand, that row is named.
    const judgedRow = row('g1', { id: 'prod.getRoutes' });
    const noisyRow = row('g2', {
      id: 'lat.v.fresh-1',
      contendedRounds: 1,
      contention: ['hypervisor steal 52% of a CPU'],
    });
    const aside = contentionSummary([judgedRow, noisyRow], new Set([judgedRow]));
    expect(aside).to.match(
      /^CPU contention: in 1 of 10 rounds .*none in a row a goal is judged on.*fit to be a baseline.*noisy rows: lat\.v\.fresh-1\./,
    );
    expect(contentionSummary([judgedRow, noisyRow], new Set([noisyRow]))).to.match(
      /^CPU CONTENTION: .*do not commit/,
    );
  });

  it('judges a run by the rows its goals are paired in: the same id in another group is not one of them', async () => {
    const { goalRows } = (await load('goals.mjs')) as unknown as {
      goalRows(
        rows: { id: string; group: string; vs?: { id: string }[] }[],
      ): Set<{ id: string; group: string }>;
    };
    const rows = [
      { id: 'prod.getRoutes', group: 'getRoutes', vs: [{ id: 'r.getRoutes' }, { id: 'a.getRoutes' }] },
      { id: 'r.getRoutes', group: 'getRoutes', vs: [] },
      { id: 'a.getRoutes', group: 'getRoutes', vs: [] },
      // The same production row again, paired with the Express embedding: no goal is judged there.
      { id: 'express.getRoutes', group: 'embedded', vs: [{ id: 'prod.getRoutes' }] },
      { id: 'prod.getRoutes', group: 'embedded', vs: [] },
    ];
    const judged = [...goalRows(rows)].map((r) => `${r.group}|${r.id}`).sort();
    expect(judged).to.deep.equal(['getRoutes|prod.getRoutes', 'getRoutes|r.getRoutes']);
  });

  it('measures contended rounds again by default only for a baseline', async () => {
    const { parseOptions } = (await load('options.mjs')) as unknown as {
      parseOptions(argv: string[], env: Record<string, string>): { retryContended: number };
    };
    expect(parseOptions([], {}).retryContended).to.equal(0);
    expect(parseOptions(['--baseline'], {}).retryContended).to.equal(3);
    expect(parseOptions(['--baseline', '--retry-contended', '0'], {}).retryContended).to.equal(0);
    expect(parseOptions(['--retry-contended=2'], {}).retryContended).to.equal(2);
  });
});
