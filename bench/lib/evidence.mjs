// What a round did, by the target's own account: signatures per answer layer and
// upstream requests (from the reference server's /metrics, or an embedded target's
// /__bench/stats), requests that reached the upstream stand-in, and bytes of call log
// written. Read before and after each round; the difference proves a "memory" row
// never left the process and a "production" row really logged and counted.
import { statSync } from 'node:fs';

const getText = async (url) => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return await res.text();
  } catch {
    return undefined;
  }
};

/** Sums of a Prometheus counter by one label: { labelValue: total }. */
export function counterByLabel(text, metric, label) {
  const out = {};
  const line = new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, 'gm');
  for (const [, labels, value] of text.matchAll(line)) {
    const key = new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1];
    if (key !== undefined) out[key] = (out[key] ?? 0) + Number(value);
  }
  return out;
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

async function fromMetrics(url) {
  const text = await getText(url);
  if (text === undefined) return undefined;
  return {
    layers: counterByLabel(text, 'rollup_router_status_lookups_total', 'layer'),
    upstreamCalls: counterByLabel(text, 'rollup_router_upstream_requests_total', 'outcome'),
    calls: sum(Object.values(counterByLabel(text, 'rollup_router_calls_total', 'code'))),
  };
}

/** One flat reading of a prepared target (url, metricsPath, statsPath, logFile, helperUrl). */
export async function readEvidence(endpoint) {
  const stats = endpoint.statsPath && (await getText(endpoint.url + endpoint.statsPath));
  const out = endpoint.metricsPath
    ? await fromMetrics(endpoint.url + endpoint.metricsPath)
    : stats && JSON.parse(stats);
  return {
    layers: {},
    upstreamCalls: {},
    ...out,
    ...(endpoint.helperUrl && { upstreamHits: Number(await getText(`${endpoint.helperUrl}/hits`)) }),
    // No file yet: no byte written.
    ...(endpoint.logFile && { logBytes: statSync(endpoint.logFile, { throwIfNoEntry: false })?.size ?? 0 }),
  };
}

/**
 * `a + sign * b` field by field, counts by label included: the difference of two readings
 * (sign -1, over the fields of the later one) or the rounds of a row added up (sign 1).
 */
function combine(a = {}, b = {}, sign) {
  const out = {};
  for (const k of sign < 0 ? Object.keys(a) : new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (typeof (a[k] ?? b[k]) !== 'object') out[k] = (a[k] ?? 0) + sign * (b[k] ?? 0);
    // A layer or outcome that served nothing did not answer.
    else out[k] = Object.fromEntries(Object.entries(combine(a[k], b[k], sign)).filter(([, v]) => v !== 0));
  }
  return out;
}

/** What happened between two readings: { layers, upstreamCalls, upstreamHits, calls, logBytes }. */
export const evidenceDelta = (before, after) => combine(after, before, -1);

/** The evidence of all rounds of one row, added up. */
export const addEvidence = (deltas) =>
  deltas.reduce((acc, d) => combine(acc, d, 1), { layers: {}, upstreamCalls: {} });

/** Notes that say which layer answered and whether what the row claims held. */
export function evidenceNotes(c, e, requests) {
  const notes = [];
  const served = Object.entries(e.layers)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  if (served) notes.push(`signatures by layer: ${served}`);
  const other = Object.keys(e.layers).filter((k) => k !== c.layer);
  if (c.layer && c.layer !== 'upstream' && (other.length > 0 || e.upstreamHits > 0)) {
    notes.push(`NOT only from ${c.layer}: ${e.upstreamHits} upstream requests`);
  }
  if (c.layer === 'upstream') {
    const { ok = 0, aborted = 0, ...failed } = e.upstreamCalls;
    // Calls under way when the load stops lose their client, and so their upstream request.
    if (ok)
      notes.push(`${ok} upstream requests${aborted ? ` (+${aborted} aborted as the load stopped)` : ''}`);
    const failures = Object.entries(failed).map(([k, v]) => `${k} ${v}`);
    if (failures.length) notes.push(`upstream failures: ${failures.join(', ')}`);
  }
  if (e.calls === 0 && requests > 0) notes.push('NO calls counted by /metrics');
  if (e.logBytes !== undefined && requests > 0) {
    notes.push(`call log ${Math.round(e.logBytes / requests)} B/request`);
    if (e.logBytes === 0) notes.push('NO call log written: production settings did not hold');
  }
  return notes;
}
