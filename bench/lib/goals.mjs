// The goals of issues 12, 36 and 38, computed from one run: each is a ratio (or a difference)
// between two rows of the same group, paired round by round. Reported, never asserted.
// `name | row | baseline | target [metric]`: `>= x`, calls/s at least x times the baseline's;
// `<= x metric`, the metric at most x: the p99 ratio, the CPU ratio, the ms added to the
// baseline's p50 (p50Added), or that over what bare forwarding adds (p50AddedRatio).
const TABLE = [
  'getRoutes, production settings ÷ Rust router | prod.getRoutes | r.getRoutes | >= 0.7',
  'getRoutes, logs silent + metrics off ÷ Rust router | lean.getRoutes | r.getRoutes | >= 0.85',
  '1 signature from memory, production ÷ validator A answering itself | prod.statuses-memory-1 | v.statuses-1 | >= 1',
  "1 signature from memory, production ÷ Rust router's forwarded path | prod.statuses-memory-1 | r.statuses-1 | >= 2.5",
  '256 signatures from memory ÷ validator A | prod.statuses-memory-256 | v.statuses-256 | >= 6',
  '256 fresh signatures through the upstream ÷ validator A direct | prod.statuses-validator-256 | v.fresh-256 | >= 0.9',
  'Express adapter ÷ Express + json-rpc-2.0 by hand | c | b | >= 1',
  "p99 at 50 connections ÷ Rust router's p99, getRoutes | prod.getRoutes | r.getRoutes | <= 2 p99",
  "p99 at 50 connections ÷ Rust router's p99, 1 signature | prod.statuses-memory-1 | r.statuses-1 | <= 2 p99",
  "p99 at 50 connections ÷ Rust router's p99, 256 signatures | prod.statuses-memory-256 | r.statuses-256 | <= 2 p99",
  'sendTransaction: latency added to validator A direct, p50 (delegation router) | dlg.sendTransaction | v.sendTransaction | <= 1 p50Added',
  ...['getAccountInfo', 'getSlot'].flatMap((m) => [
    `${m} passed through: latency added to validator A direct, p50 ÷ bare forwarding's | dlg.${m} | v.${m} | <= 1.2 p50AddedRatio`,
    `${m} passed through: CPU per call ÷ bare forwarding's | dlg.${m} | p.${m} | <= 1.5 cpu`,
  ]),
];
export const GOALS = TABLE.map((line) => {
  const [name, row, vs, target] = line.split(' | ');
  const [op, x, metric] = target.split(' ');
  return {
    name,
    row,
    vs,
    ...(metric === 'p50AddedRatio' && { over: row.replace(/^dlg\./, 'p.') }),
    ...(metric && { metric }),
    ...(op === '>=' ? { atLeast: Number(x) } : { atMost: Number(x) }),
    ...(metric === 'p50Added' && { unit: 'ms' }),
  };
});

/** Which figure of a row's pair with its baseline a goal reads (`vs` entries, summary.mjs). */
const METRIC = { p99: 'p99Ratio', p50Added: 'p50AddedMs', cpu: 'cpuRatio' };

/** A row's added p50 over `vs` (its pair's p50AddedMs), or undefined. */
const addedOver = (rows, id, vs) => rows.find((r) => r.id === id)?.vs?.find((v) => v.id === vs)?.p50AddedMs;

/**
 * Issue 12's rules allow the call log sampled as a documented option, not the default,
 * with the bench reporting both: each goal of a production row taken again with the row
 * of the same calls and `callLog.sampleRate` 0.01 (sampled.*). Reported beside the goals,
 * never judged met or missed: the goals are the default's.
 */
const SAMPLED = {
  'prod.getRoutes': 'sampled.getRoutes',
  'prod.statuses-memory-1': 'sampled.statuses-memory-1',
};
export const OPTION_LINES = GOALS.filter((g) => g.row in SAMPLED).map(
  ({ name, row, vs, metric, ...target }) => ({
    name: `option, not default (call log sampled 1%): ${name}`,
    row: SAMPLED[row],
    vs,
    metric,
    defaultGoal: target,
  }),
);

/** The row a goal (or option line) is judged on: `g.row` where it was paired with `g.vs`. */
const judgedRow = (g, rows) => rows.find((r) => r.id === g.row && r.vs?.some((v) => v.id === g.vs));

/** Every row a goal or option line is judged on, with the baselines it was paired with (same group). */
export function goalRows(rows) {
  const judged = new Set();
  for (const g of [...GOALS, ...OPTION_LINES]) {
    const row = judgedRow(g, rows);
    if (!row) continue;
    judged.add(row);
    for (const r of rows) if ((r.id === g.vs || r.id === g.over) && r.group === row.group) judged.add(r);
  }
  return judged;
}

/** The paired ratio of a goal's row to its baseline, or null with the reason it was not measured. */
function measuredRatio(g, rows) {
  const row = judgedRow(g, rows);
  const pair = row?.vs.find((v) => v.id === g.vs);
  // The latency one row adds to a baseline, over what another (bare forwarding) adds to it.
  const ratio =
    g.metric === 'p50AddedRatio'
      ? addedOver(rows, g.row, g.vs) / addedOver(rows, g.over, g.vs)
      : pair?.[METRIC[g.metric] ?? 'ratio'];
  if (Number.isFinite(ratio)) return { ratio };
  const why = [g.row, g.vs, ...(g.over ? [g.over] : [])].map((id) => {
    const r = rows.find((x) => x.id === id);
    if (!r) return `${id} not run`;
    return r.absent ? `${id} absent` : r.error ? `${id} failed` : '';
  });
  return { ratio: null, reason: why.filter(Boolean).join('; ') || 'no paired rounds' };
}

/** Each goal with `ratio` and `met` (true, false, or null with `reason` when not measured). */
export function computeGoals(rows) {
  return GOALS.map((g) => {
    const { ratio, reason } = measuredRatio(g, rows);
    if (ratio === null) return { ...g, ratio: null, met: null, reason };
    return { ...g, ratio, met: g.atMost !== undefined ? ratio <= g.atMost : ratio >= g.atLeast };
  });
}

/** Each option line with `ratio` (null with `reason` when not measured); no `met`: not a goal. */
export function computeOptionLines(rows) {
  return OPTION_LINES.map((o) => ({ ...o, ...measuredRatio(o, rows) }));
}
