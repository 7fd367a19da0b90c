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

/** `endpoint`: a prepared target (url, metricsPath, statsPath, logFile, helperUrl). */
export async function readEvidence(endpoint) {
  const out = {};
  if (endpoint.metricsPath) out.server = await fromMetrics(endpoint.url + endpoint.metricsPath);
  else if (endpoint.statsPath) {
    const text = await getText(endpoint.url + endpoint.statsPath);
    out.server = text && JSON.parse(text);
  }
  if (endpoint.helperUrl) out.upstreamHits = Number(await getText(`${endpoint.helperUrl}/hits`));
  if (endpoint.logFile) out.logBytes = statSync(endpoint.logFile, { throwIfNoEntry: false })?.size;
  return out;
}

const delta = (after = {}, before = {}) =>
  Object.fromEntries(
    Object.keys(after)
      .map((k) => [k, after[k] - (before[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  );

/** What happened between two readings: { layers, upstreamCalls, upstreamHits, calls, logBytes }. */
export function evidenceDelta(before, after) {
  return {
    layers: delta(after.server?.layers, before.server?.layers),
    upstreamCalls: delta(after.server?.upstreamCalls, before.server?.upstreamCalls),
    upstreamHits: (after.upstreamHits ?? 0) - (before.upstreamHits ?? 0),
    calls: after.server?.calls === undefined ? undefined : after.server.calls - (before.server?.calls ?? 0),
    logBytes: after.logBytes === undefined ? undefined : after.logBytes - (before.logBytes ?? 0),
  };
}

const sumInto = (into, from) => {
  for (const [k, v] of Object.entries(from ?? {})) into[k] = (into[k] ?? 0) + v;
  return into;
};

/** The evidence of all rounds of one row, added up. */
export function addEvidence(deltas) {
  return deltas.reduce(
    (acc, d) => ({
      layers: sumInto(acc.layers, d.layers),
      upstreamCalls: sumInto(acc.upstreamCalls, d.upstreamCalls),
      upstreamHits: acc.upstreamHits + d.upstreamHits,
      calls: d.calls === undefined ? acc.calls : (acc.calls ?? 0) + d.calls,
      logBytes: d.logBytes === undefined ? acc.logBytes : (acc.logBytes ?? 0) + d.logBytes,
    }),
    { layers: {}, upstreamCalls: {}, upstreamHits: 0, calls: undefined, logBytes: undefined },
  );
}

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
