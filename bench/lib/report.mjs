// The tables printed at the end: one row per case with medians over its rounds, then the goals.
const fmt = (f) => (n) => (Number.isFinite(n) ? f(n) : '-');
const fmtInt = fmt((n) => Math.round(n).toLocaleString('en-US'));
const fmt1 = fmt((n) => n.toFixed(1));
const fmtMs = fmt((n) => n.toFixed(2));
const fmtMb = fmt((kb) => (kb / 1024).toFixed(0));
const fmtRatio = fmt((x) => `${x.toFixed(2)}x`);
const pct = fmt((x) => `${Math.round(x * 100)}%`);

const HEAD = [
  ...['id', 'case', 'req/s', 'min-max', 'p50 ms', 'p99 ms', 'CPU µs/req', 'upstream µs/req', 'RSS MB'],
  ...['vs baseline, same rounds (req/s; p99)', 'others', 'notes'],
];
const NUMERIC = new Set([2, 3, 4, 5, 6, 7, 8, 10]);

// Start-up notes of a target say what it is (already in "case"); the rest are findings.
const finding = (n) => !/^(logging on|production settings|lean settings|sampled settings|statuses: )/.test(n);

function cells(row) {
  const empty = (what, why) => [row.id, row.what, what, ...Array(8).fill(''), why];
  if (row.absent) return empty('absent', row.absent);
  if (!row.rounds) return empty('error', row.error ?? '');
  const runs = row.reqPerSecRounds.filter((x) => x !== null);
  // p99 is a goal against the Rust router only; elsewhere it would crowd the column.
  const p99 = (v) => (v.id.startsWith('r.') && v.p99Ratio ? ` (p99 ${fmtRatio(v.p99Ratio)})` : '');
  const vs = row.vs.map((v) => `${fmtRatio(v.ratio)} ${v.id}${p99(v)}`);
  const notes = row.notes.filter(finding);
  if (row.error) notes.push(row.error);
  if (row.contendedRounds) notes.push(`contention in ${row.contendedRounds}/${row.rounds} rounds`);
  return [
    row.id,
    row.what,
    fmtInt(row.reqPerSec),
    `${fmtInt(Math.min(...runs))}-${fmtInt(Math.max(...runs))}`,
    fmtMs(row.latencyMs.p50),
    fmtMs(row.latencyMs.p99),
    fmt1(row.cpuUsPerRequest),
    fmt1(row.upstreamCpuUsPerRequest),
    fmtMb(row.peakRssKb),
    vs.join(', '),
    pct(row.othersCpuShareMax),
    notes.join('; '),
  ];
}

/** Plain text for the terminal: one block per group, columns padded. */
export function textTable(rows) {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) =>
    Math.min(i === 11 ? 120 : 64, Math.max(...all.map((r) => String(r[i]).length))),
  );
  const cell = (c, i) => String(c).slice(0, widths[i])[NUMERIC.has(i) ? 'padStart' : 'padEnd'](widths[i]);
  const line = (r) => r.map(cell).join('  ').trimEnd();
  const out = [line(HEAD)];
  let group;
  rows.forEach((r, i) => {
    if (r.group !== group) out.push(`-- ${(group = r.group)}`);
    out.push(line(all[i + 1]));
  });
  return out.join('\n');
}

const unit = (g) => (g.unit ? ` ${g.unit}` : 'x');
const goalTarget = (g) => (g.atMost !== undefined ? `<= ${g.atMost}${unit(g)}` : `>= ${g.atLeast}${unit(g)}`);
const goalFigure = (g) =>
  g.unit && Number.isFinite(g.ratio) ? `${g.ratio.toFixed(2)} ${g.unit}` : fmtRatio(g.ratio);
const goalResult = (g) => (g.met === null ? `n/a (${g.reason})` : g.met ? 'met' : 'MISSED');

// An option line (goals.mjs OPTION_LINES) is informational: the default's target beside it, no verdict.
const optionTarget = (o) => `(default's goal ${goalTarget(o.defaultGoal)})`;
const optionResult = (o) => (o.ratio === null ? `n/a (${o.reason})` : 'informational');

/** The goals, the soak's line and the option lines as cells: goal, figure, target, result. */
const goalCells = (goals, optionLines) => [
  ...goals.map((g) => [g.name, goalFigure(g), goalTarget(g), goalResult(g)]),
  ['soak: no RSS growth over 1M mixed calls', '', '', 'run npm run bench -- --soak'],
  ...optionLines.map((o) => [o.name, fmtRatio(o.ratio), optionTarget(o), optionResult(o)]),
];

export function textGoals(goals, optionLines = []) {
  const rows = goalCells(goals, optionLines);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
  const line = ([goal, figure, target, result]) =>
    `  ${goal.padEnd(widths[0])}  ${figure.padStart(widths[1])}  ${target.padStart(widths[2])}  ${result}`;
  return ['goals (ratio, or ms added: the median over rounds of the paired ratio or difference):']
    .concat(rows.map(line))
    .join('\n');
}

/**
 * One line on CPU contention over the whole run: the figures are only as good as this.
 * `judged`: the rows the goals are judged on (goals.mjs goalRows). A run is fit to be a
 * baseline when none of them had a contended round; other rows' contention is named.
 */
export function contentionSummary(rows, judged = new Set(rows)) {
  const rounds = rows.reduce((n, r) => n + (r.rounds ?? 0), 0);
  const contended = rows.reduce((n, r) => n + (r.contendedRounds ?? 0), 0);
  // Rows of a group share their rounds: a round measured again counts once.
  const remeasured = [...new Map(rows.map((r) => [r.group, r.remeasuredRounds ?? 0])).values()];
  const again = remeasured.some(Boolean)
    ? `; ${remeasured.reduce((a, b) => a + b)} round(s) measured again after contention (--retry-contended)`
    : '';
  const shares = rows.flatMap((r) => [r.othersCpuShareMax, r.stealShareMax]).filter(Number.isFinite);
  const worst = Math.max(0, ...shares);
  if (!contended) return `CPU contention: none noted in ${rounds} rounds (others below 5% of a CPU)${again}`;
  const examples = [...new Set(rows.flatMap((r) => r.contention))].slice(0, 3);
  const seen = `in ${contended} of ${rounds} rounds other processes or the hypervisor used the CPUs (up to ${pct(worst)} of a CPU)${again}`;
  const noisy = rows.filter((r) => r.contendedRounds > 0);
  if (!noisy.some((r) => judged.has(r))) {
    return (
      `CPU contention: ${seen}; none in a row a goal is judged on, so the goals were measured without it ` +
      `(fit to be a baseline); noisy rows: ${noisy.map((r) => r.id).join(', ')}. E.g. ${examples.join(' | ')}`
    );
  }
  return (
    `CPU CONTENTION: ${seen}, in rows the goals are judged on; ` +
    `these figures are noisy, do not commit them as a baseline. E.g. ${examples.join(' | ')}`
  );
}

/** The latency the rows with `added` (summary.mjs) add to their baselines, under the table. */
export function addedLines(rows) {
  const added = rows.filter((r) => r.added?.length);
  if (added.length === 0) return '';
  return [
    'latency added (medians over rounds of the per-round difference, same rounds):',
    ...added.flatMap((r) => r.added.map((line) => `  ${r.id} ${line}`)),
  ].join('\n');
}

// Issue 10's "calls over the socket vs over HTTP": each ws.* row against the HTTP row it
// shares a server and rounds with (its `vs`), as ratios of calls/s and of server CPU per
// call. Both clients run in the bench process (autocannon, `ws`): the CPU ratio is the one
// that does not depend on which client is cheaper. Empty when no socket row ran.
export function socketLines(rows) {
  const sockets = rows.filter((r) => r.id.startsWith('ws.') && r.vs?.length);
  if (sockets.length === 0) return '';
  const width = Math.max(...sockets.map((r) => r.id.length));
  const line = (r, [v] = r.vs) => {
    const http = rows.find((x) => x.id === v.id && x.group === r.group);
    return (
      `  ${r.id.padEnd(width)}  calls/s ${fmtRatio(v.ratio)} ${v.id}; server CPU µs/call ` +
      `${fmt1(r.cpuUsPerRequest)} vs ${fmt1(http?.cpuUsPerRequest)} (${fmtRatio(v.cpuRatio)})`
    );
  };
  return [
    'WebSocket vs HTTP (issue 10): the same call to the same server (production settings) in the same rounds, ' +
      'one call in flight per socket / keep-alive connection:',
    ...sockets.map((r) => line(r)),
  ].join('\n');
}
