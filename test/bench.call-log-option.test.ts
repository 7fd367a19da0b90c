// The bench reports the sampled call log (an option, not the default) beside the goals:
// its rows run in the quick groups with the production rows and their baselines, and its
// ratios come out as lines labelled as an option, never judged as goals.
import { expect } from 'chai';

interface Row {
  id: string;
  rounds?: number;
  absent?: string;
  vs?: { id: string; ratio: number; p99Ratio: number }[];
}
interface OptionLine {
  name: string;
  row: string;
  vs: string;
  ratio: number | null;
  reason?: string;
  defaultGoal: { atLeast?: number; atMost?: number };
  met?: unknown;
}
interface Case {
  id: string;
  vs?: string[];
  target: { args: string[] };
}

const load = <T>(file: string): Promise<T> =>
  import(new URL(`../bench/lib/${file}`, import.meta.url).href) as Promise<T>;

describe('bench: the sampled call log rows and their option lines', () => {
  it('sampled.getRoutes and sampled.statuses-memory-1 run in quick mode, in the groups of the production rows', async () => {
    const { selectGroups } = await load<{
      selectGroups(o: { quick: boolean }, cases: Map<string, Case>): { name: string; members: string[] }[];
    }>('groups.mjs');
    const groups = selectGroups({ quick: true }, new Map());
    const groupOf = (id: string) => groups.find((g) => g.members.includes(id))?.name;
    expect(groupOf('sampled.getRoutes')).to.be.a('string').and.equal(groupOf('prod.getRoutes'));
    expect(groupOf('sampled.statuses-memory-1'))
      .to.be.a('string')
      .and.equal(groupOf('prod.statuses-memory-1'));
  });

  it('the sampled rows are the production rows with --settings sampled, compared with the same baselines and with them', async () => {
    const { ourCases } = await load<{ ourCases(inputs: unknown): Case[] }>('cases-ours.mjs');
    const cases = ourCases({ sigs: ['s'], primed: [], fresh1: [], fresh256: [], pids: {} });
    const byId = new Map(cases.map((c) => [c.id, c]));
    for (const [sampled, prod] of [
      ['sampled.getRoutes', 'prod.getRoutes'],
      ['sampled.statuses-memory-1', 'prod.statuses-memory-1'],
    ] as const) {
      const s = byId.get(sampled)!;
      expect(s.target.args).to.deep.equal(['--settings', 'sampled', '--statuses', 'memory']);
      expect(s.vs).to.deep.equal([...byId.get(prod)!.vs!, prod]);
    }
  });

  it('each goal of a production row is taken again with the sampled row, labelled an option, with no verdict', async () => {
    const { computeOptionLines } = await load<{ computeOptionLines(rows: Row[]): OptionLine[] }>('goals.mjs');
    const lines = computeOptionLines([
      { id: 'sampled.getRoutes', rounds: 3, vs: [{ id: 'r.getRoutes', ratio: 0.8, p99Ratio: 1.5 }] },
      { id: 'r.getRoutes', rounds: 3, vs: [] },
      { id: 'v.statuses-1', absent: 'peers not running' },
    ]);
    expect(lines.map((l) => [l.row, l.vs])).to.deep.equal([
      ['sampled.getRoutes', 'r.getRoutes'],
      ['sampled.statuses-memory-1', 'v.statuses-1'],
      ['sampled.statuses-memory-1', 'r.statuses-1'],
      ['sampled.getRoutes', 'r.getRoutes'],
      ['sampled.statuses-memory-1', 'r.statuses-1'],
    ]);
    for (const l of lines) {
      expect(l.name).to.match(/^option, not default/);
      expect(l).to.not.have.property('met');
    }
    expect(lines[0]).to.include({ ratio: 0.8 });
    expect(lines[0]!.defaultGoal).to.deep.equal({ atLeast: 0.7 });
    expect(lines[3]).to.include({ ratio: 1.5 });
    expect(lines[3]!.defaultGoal).to.deep.equal({ atMost: 2 });
    expect(lines[1]).to.include({ ratio: null });
    expect(lines[1]!.reason).to.include('v.statuses-1 absent');
  });
});
