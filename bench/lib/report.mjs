// The one table (and the goal ratios) printed at the end, as text and as Markdown.
import { LOGGING_NOTE } from '../targets/lib/bench-logger.mjs';

export const GOALS = [
  { name: 'c/b  core+Express ÷ Express+json-rpc-2.0 (req/s)', num: 'c', den: 'b', goal: 1.0 },
  { name: 'd/a  core standalone ÷ bare node:http (req/s)', num: 'd', den: 'a', goal: 0.8 },
  {
    name: 'getRoutes standalone ÷ router getRoutes (req/s)',
    num: 'node.getRoutes',
    den: 'r.getRoutes',
    goal: 0.9,
  },
  {
    name: 'getRoutes Express host ÷ router getRoutes (req/s)',
    num: 'express.getRoutes',
    den: 'r.getRoutes',
    goal: 0.9,
  },
  {
    name: 'statuses memory 1 ÷ router forwarded 1 (req/s)',
    num: 'node.statuses-memory-1',
    den: 'r.statuses-1',
    goal: 3,
  },
  {
    name: 'statuses memory 256 ÷ router forwarded 256 (req/s)',
    num: 'node.statuses-memory-256',
    den: 'r.statuses-256',
    goal: 3,
  },
  {
    name: 'statuses memory 1, Express host ÷ router forwarded 1',
    num: 'express.statuses-memory-1',
    den: 'r.statuses-1',
    goal: 3,
  },
  {
    name: 'upstream path p50 added, stand-in, 1 sig, 50 conn (ms)',
    num: 'node.statuses-upstream-1',
    den: 'u.statuses-1',
    maxAddedMs: 1,
  },
  {
    name: 'upstream path p50 added, stand-in, 256 sigs, 50 conn (ms)',
    num: 'node.statuses-upstream-256',
    den: 'u.statuses-256',
    maxAddedMs: 1,
  },
  {
    name: 'upstream path p50 added, stand-in, 1 sig, 1 conn (ms)',
    num: 'lat.node.statuses-upstream-1',
    den: 'lat.u.statuses-1',
    maxAddedMs: 1,
  },
  {
    name: 'upstream path p50 added, validator A, 1 sig, 50 conn (ms)',
    num: 'node.statuses-validator-1',
    den: 'v.fresh-1',
    maxAddedMs: 1,
  },
  {
    name: 'upstream path p50 added, validator A, 1 sig, 1 conn (ms)',
    num: 'lat.node.statuses-validator-1',
    den: 'lat.v.fresh-1',
    maxAddedMs: 1,
  },
];

const measured = (r) => r && Number.isFinite(r.reqPerSec);

export function computeGoals(rows) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return GOALS.map((g) => {
    const num = byId.get(g.num);
    const den = byId.get(g.den);
    if (!measured(num) || !measured(den)) {
      const why = [num, den]
        .map((r, i) =>
          !r
            ? `${[g.num, g.den][i]} not run`
            : !measured(r)
              ? `${r.id} ${r.absent ? 'absent' : 'failed'}`
              : '',
        )
        .filter(Boolean);
      return { ...g, value: null, met: null, reason: why.join('; ') };
    }
    if (g.goal !== undefined) {
      const value = num.reqPerSec / den.reqPerSec;
      return { ...g, value, met: value >= g.goal, missBy: value >= g.goal ? 0 : g.goal - value };
    }
    const value = num.latencyMs.p50 - den.latencyMs.p50;
    return {
      ...g,
      value,
      met: value <= g.maxAddedMs,
      missBy: value <= g.maxAddedMs ? 0 : value - g.maxAddedMs,
    };
  });
}

/** "0.93× r.getRoutes" for each baseline the row names. */
export function versus(row, rows) {
  if (!measured(row) || !row.vs) return '';
  return row.vs
    .map((id) => rows.find((r) => r.id === id))
    .filter(measured)
    .map((b) => `${fmtRatio(row.reqPerSec / b.reqPerSec)} ${b.id}`)
    .join(', ');
}

const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const fmtMs = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const fmtMb = (kb) => (Number.isFinite(kb) ? (kb / 1024).toFixed(0) : '-');
const fmtRatio = (x) => `${x.toFixed(2)}×`;

function cells(row, rows) {
  if (row.absent) return [row.id, row.what, 'absent', '', '', '', '', row.absent];
  if (row.error && !measured(row)) return [row.id, row.what, 'error', '', '', '', '', row.error];
  const notes = row.notes.filter(
    (n) => n !== LOGGING_NOTE && !n.startsWith('statuses:') && !n.startsWith('RSS:'),
  );
  return [
    row.id,
    row.what,
    fmtInt(row.reqPerSec),
    fmtMs(row.latencyMs.p50),
    fmtMs(row.latencyMs.p99),
    fmtMb(row.peakRssKb) +
      (row.group === 'baseline' && row.notes.some((n) => n.startsWith('RSS:')) ? '*' : ''),
    versus(row, rows),
    notes.join('; '),
  ];
}

const HEAD = ['id', 'case', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'vs baseline (req/s)', 'notes'];

export function markdownTable(rows) {
  const lines = [
    `| ${HEAD.join(' | ')} |`,
    `| ${HEAD.map((_, i) => (i >= 2 && i <= 5 ? '---:' : '---')).join(' | ')} |`,
  ];
  for (const r of rows)
    lines.push(
      `| ${cells(r, rows)
        .map((c) => String(c).replace(/\|/g, '\\|'))
        .join(' | ')} |`,
    );
  return lines.join('\n');
}

export function markdownGoals(goals) {
  const lines = ['| goal | measured | target | result |', '| --- | ---: | ---: | --- |'];
  for (const g of goals) {
    const target = g.goal !== undefined ? `>= ${g.goal}×` : `<= ${g.maxAddedMs} ms`;
    const value =
      g.value === null
        ? '-'
        : g.goal !== undefined
          ? fmtRatio(g.value)
          : `${g.value >= 0 ? '+' : ''}${g.value.toFixed(2)} ms`;
    const result =
      g.met === null
        ? `n/a (${g.reason})`
        : g.met
          ? 'met'
          : `MISSED by ${g.goal !== undefined ? g.missBy.toFixed(2) + '×' : g.missBy.toFixed(2) + ' ms'}`;
    lines.push(`| ${g.name} | ${value} | ${target} | ${result} |`);
  }
  return lines.join('\n');
}

/** Plain-text table for the terminal: the same columns, padded. */
export function textTable(rows) {
  const all = [HEAD, ...rows.map((r) => cells(r, rows))];
  const widths = HEAD.map((_, i) =>
    Math.min(i === 7 ? 80 : 64, Math.max(...all.map((row) => String(row[i]).length))),
  );
  return all
    .map((row) =>
      row
        .map((c, i) => {
          const s = String(c).slice(0, widths[i]);
          return i >= 2 && i <= 5 ? s.padStart(widths[i]) : s.padEnd(widths[i]);
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function textGoals(goals) {
  return markdownGoals(goals)
    .split('\n')
    .filter((l) => !l.startsWith('| ---'))
    .map((l) =>
      l
        .replace(/^\| | \|$/g, '')
        .split(' | ')
        .join('  '),
    )
    .join('\n');
}
