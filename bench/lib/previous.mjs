// "Did this change make us faster": the goal ratios of this run next to those of the
// previous run of the same mode on the same machine class (or its committed baseline).
// Ratios, not req/s: each is taken within one run, so they survive a busier machine.
import { readdirSync, readFileSync } from 'node:fs';

/** The newest earlier complete result of `prefix` (e.g. `quick-2cpu-...-`) in `dir`, else the baseline. */
export function previousResult(dir, prefix, baselineName) {
  const names = readdirSync(dir, { withFileTypes: true })
    .map((e) => e.name)
    .filter((n) => n.startsWith(prefix) && n.endsWith('.json'))
    .sort()
    .reverse();
  for (const name of [...names, baselineName]) {
    try {
      const data = JSON.parse(readFileSync(`${dir}${name}`, 'utf8'));
      // --only runs lack most goals: not what "since the last run" means.
      if (data.goals?.some((g) => 'ratio' in g) && !data.settings?.only) return { name, data };
    } catch {
      // missing or unreadable: try the next one
    }
  }
  return undefined;
}

/** Lines "goal  before -> now" for the goals both runs measured. */
export function goalChanges(goals, previous) {
  if (!previous) return 'no earlier comparable run on this machine to compare with';
  const before = new Map(previous.data.goals.map((g) => [g.name, g.ratio]));
  const lines = goals
    .filter((g) => Number.isFinite(g.ratio) && Number.isFinite(before.get(g.name)))
    .map((g) => {
      const was = before.get(g.name);
      const better = g.atMost !== undefined ? g.ratio < was : g.ratio > was;
      const change = `${better ? 'better' : 'worse'}, ${((g.ratio / was - 1) * 100).toFixed(0)}%`;
      return `  ${g.name.padEnd(70)} ${was.toFixed(2)}x -> ${g.ratio.toFixed(2)}x (${change})`;
    });
  return [`since ${previous.name} (${previous.data.date}):`, ...lines].join('\n');
}
