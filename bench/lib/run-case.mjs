// One row: start the target (and its upstream stand-in), check its answer, prime it,
// warm it up, measure it, read its peak memory, stop it.
import { runLoad } from './load.mjs';
import { rpcCall } from './peers.mjs';
import { readMemory, sampleRss } from './proc-status.mjs';
import { startTarget } from './processes.mjs';

const getJson = async (url) => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return JSON.parse(await res.text());
  } catch {
    return undefined;
  }
};

const delta = (after = {}, before = {}) =>
  Object.fromEntries(
    Object.keys(after)
      .map((k) => [k, after[k] - (before[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  );

/** Counters that prove which layer answered during the measured run. */
async function counters(target, helper) {
  const out = {};
  if (target?.statsPath) out.stats = await getJson(target.url + target.statsPath);
  if (helper) out.upstreamHits = await getJson(`${helper.url}/hits`);
  return out;
}

function layerNotes(c, before, after) {
  const notes = [];
  const layers = delta(after.stats?.layers, before.stats?.layers);
  const calls = delta(after.stats?.upstreamCalls, before.stats?.upstreamCalls);
  const hits = (after.upstreamHits ?? 0) - (before.upstreamHits ?? 0);
  const served = Object.entries(layers)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  if (served) notes.push(`signatures by layer: ${served}`);
  const other = Object.keys(layers).filter((k) => k !== c.layer);
  if (c.layer && c.layer !== 'upstream' && (other.length > 0 || hits > 0)) {
    notes.push(`NOT only from ${c.layer}: ${hits} upstream requests`);
  }
  if (c.layer === 'upstream') {
    const { ok = 0, aborted = 0, ...failed } = calls;
    // Calls under way when the load stops lose their client, and so their upstream request.
    if (ok)
      notes.push(`${ok} upstream requests${aborted ? ` (+${aborted} aborted as the load stopped)` : ''}`);
    if (Object.keys(failed).length) {
      notes.push(
        `upstream failures: ${Object.entries(failed)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    }
  }
  return { notes, layers, upstreamCalls: calls, upstreamHits: hits };
}

/** `targetNodeArgs`: extra node flags of the server under test (e.g. --cpu-prof). */
export async function runCase(c, settings, { targetNodeArgs = [] } = {}) {
  const row = {
    id: c.id,
    group: c.group,
    what: c.what,
    connections: c.connections ?? settings.connections,
    notes: [],
  };
  if (c.absent) return { ...row, absent: c.absent };
  let helper;
  let target;
  try {
    let url;
    let pid;
    if (c.peer) {
      ({ url, pid } = c.peer);
    } else {
      const args = [...(c.target.args ?? [])];
      const upstream = c.target.upstream;
      if (upstream) {
        if (upstream.script) {
          helper = await startTarget(upstream.script);
          if (helper.absent) return { ...row, absent: `upstream: ${helper.absent}` };
        }
        args.push('--upstream', helper?.url ?? upstream.url);
      }
      target = await startTarget(c.target.script, args, { nodeArgs: targetNodeArgs });
      if (target.absent) return { ...row, absent: target.absent };
      ({ url, pid } = target);
      row.notes.push(...(target.notes ?? []));
    }
    const first = c.requests[0];
    for (const body of c.prime ?? []) await rpcCall(url + first.path, body, 10_000);
    const probe = await rpcCall(url + first.path, first.body ?? first.bodies[0], 10_000);
    row.probe = probe.text.slice(0, 240);
    const problem =
      probe.status !== 200 ? `HTTP ${probe.status}: ${probe.text.slice(0, 120)}` : c.check(probe.text);
    if (problem) return { ...row, error: problem };

    const before = await counters(target, helper);
    const rss = sampleRss(pid);
    // Bodies are not compared during the run (that would load the client); the answer is
    // checked before and after, and the status of every response is counted.
    const load = await runLoad(url, c.requests, { ...settings, connections: row.connections });
    const peakPolledKb = rss.stop();
    // Our children: the kernel's high-water mark; the peers (not ours to restart): polled peak of this run.
    const peakRssKb = c.peer ? peakPolledKb : (readMemory(pid)?.hwmKb ?? peakPolledKb);
    const after = await counters(target, helper);
    const again = await rpcCall(
      url + first.path,
      first.body ?? first.bodies[1 % first.bodies.length],
      10_000,
    );
    const afterProblem = again.status !== 200 ? `HTTP ${again.status}` : c.check(again.text);
    if (afterProblem) row.notes.push(`answer after the run is wrong: ${afterProblem}`);
    if (c.same && again.text !== probe.text)
      row.notes.push('answer after the run differs from the one before');
    const proof = layerNotes(c, before, after);
    row.notes.push(...proof.notes);
    if (c.peer) row.notes.push('RSS: highest VmRSS polled during the run (peer not started by us)');
    if (load.errors || load.timeouts || load.non2xx || load.mismatches) {
      row.notes.push(`errors ${load.errors}, timeouts ${load.timeouts}, non-2xx ${load.non2xx}`);
    }
    return {
      ...row,
      ...load,
      peakRssKb,
      layers: proof.layers,
      upstreamCalls: proof.upstreamCalls,
      upstreamHits: proof.upstreamHits,
    };
  } catch (err) {
    return { ...row, error: err.message };
  } finally {
    await target?.stop?.();
    await helper?.stop?.();
  }
}
