// From rounds to a row: medians of what each round measured, and ratios to the
// baselines paired round by round (row and baseline of the same round ran back to back,
// so a slower machine in one round moves both), then the median of those ratios.
import { addEvidence, evidenceNotes } from './evidence.mjs';

export function median(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

const sum = (xs, get) => xs.reduce((t, x) => t + get(x), 0);
const field = (samples, get) => median(samples.filter(Boolean).map(get));
const max = (values) => {
  const v = values.filter(Number.isFinite);
  return v.length ? Math.max(...v) : undefined;
};

// The per-round figures a row shows the median of.
const MEDIANS = ['reqPerSec', 'cpuUsPerRequest', 'upstreamCpuUsPerRequest', 'loadGeneratorCpuUsPerRequest'];

/** One row of the table from the samples of its rounds (`samples[i]` undefined: round i failed). */
export function summarise(c, group, samples, extra) {
  const ok = samples.filter(Boolean);
  const evidence = addEvidence(ok.map((s) => s.evidence));
  const requests = sum(ok, (s) => s.totalRequests);
  const failures = sum(ok, (s) => s.errors + s.timeouts + s.non2xx);
  const contended = ok.filter((s) => s.contention);
  const notes = [...(extra.notes ?? []), ...evidenceNotes(c, evidence, requests)];
  const redisUs = field(samples, (s) => s.redisCpuUsPerRequest);
  if (redisUs > 0) notes.unshift(`redis-server ${redisUs.toFixed(1)} CPU µs/req`);
  const perInstance = ok[0]?.callsPerInstance.map((_, k) => sum(ok, (s) => s.callsPerInstance[k]));
  if (perInstance?.length > 1) notes.unshift(`calls per instance: ${perInstance.join(' / ')}`);
  if (failures) notes.push(`${failures} errors/timeouts/non-2xx in ${requests} requests`);
  for (const n of new Set(ok.flatMap((s) => s.notes))) notes.push(n);
  return {
    id: c.id,
    group,
    what: c.what,
    ...extra, // connections, peakRssKb, error, absent: what the group knows beside the rounds
    rounds: ok.length,
    ...Object.fromEntries(MEDIANS.map((k) => [k, field(samples, (s) => s[k])])),
    reqPerSecRounds: samples.map((s) => (s ? Math.round(s.reqPerSec) : null)),
    latencyMs: {
      p50: field(samples, (s) => s.latencyMs.p50),
      p99: field(samples, (s) => s.latencyMs.p99),
      max: max(ok.map((s) => s.latencyMs.max)),
    },
    othersCpuShareMax: max(ok.map((s) => s.othersCpuShare)),
    stealShareMax: max(ok.map((s) => s.stealShare)),
    contendedRounds: contended.length,
    remeasuredRounds: extra.remeasuredRounds ?? 0,
    contention: contended.map((s) => s.contention),
    peakRssKb: extra.peakRssKb ?? max(ok.map((s) => s.peakPolledKb)),
    evidence,
    samples,
    notes,
  };
}

/** Median over the rounds both rows measured of `get(row sample, baseline sample)`. */
const pairedMedian = (row, base, get) =>
  median(row.samples.map((s, i) => (s && base.samples[i] ? get(s, base.samples[i]) : undefined)));

const pairedRatio = (row, base, get) => pairedMedian(row, base, (s, b) => get(s) / get(b));
const pairedAdded = (row, base, p) => pairedMedian(row, base, (s, b) => s.latencyMs[p] - b.latencyMs[p]);

/**
 * Adds `vs: [{ id, ratio, p99Ratio, cpuRatio, p50AddedMs, p99AddedMs }]` to each row of one
 * group; a row whose case says `added` also gets `added`: the latency it adds to each, in words.
 */
export function pairWithBaselines(rows, cases) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const row of rows) {
    const c = cases.get(row.id);
    row.vs = (c.vs ?? [])
      .map((id) => byId.get(id))
      .filter((b) => b && b.rounds > 0 && row.rounds > 0)
      .map((b) => ({
        id: b.id,
        ratio: pairedRatio(row, b, (s) => s.reqPerSec),
        p99Ratio: pairedRatio(row, b, (s) => s.latencyMs.p99),
        cpuRatio: pairedRatio(row, b, (s) => s.cpuUsPerRequest),
        p50AddedMs: pairedAdded(row, b, 'p50'),
        p99AddedMs: pairedAdded(row, b, 'p99'),
      }));
    // Under the table, or (rows of `instances`) in the row's notes.
    if (c.added) row.added = row.vs.map(addedNote);
    if (c.instances) row.notes.unshift(...row.vs.map(addedNote));
  }
  return rows;
}

const fmtAdded = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(3)} ms`;

/** "vs ID: p50 +x ms, p99 +y ms (p99 z.zzx)": what a row adds to a baseline's latency, round by round. */
export const addedNote = (v) =>
  `vs ${v.id}: p50 ${fmtAdded(v.p50AddedMs)}, p99 ${fmtAdded(v.p99AddedMs)} (p99 ${v.p99Ratio.toFixed(2)}x)`;
