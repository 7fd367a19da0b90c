// One case, one round: warm the connections up, measure under load with a CPU window
// around the measured part, and read the evidence before and after. The answer is
// checked before the first round and after each one (not during: that would load the
// client); every response's status is counted.
import { contentionNote, cpuWindow } from './contention.mjs';
import { evidenceDelta, readEvidence } from './evidence.mjs';
import { rpcCall } from './peers.mjs';
import { sampleRss } from './proc-status.mjs';
import { nextBody } from './load.mjs';
import { loadFor } from './transports.mjs';

/** Primes the case's caches and checks its answer; returns the probe's text, or throws why not. */
export async function checkAnswer(c, endpoint) {
  const first = c.requests[0];
  for (const body of c.prime ?? []) await rpcCall(endpoint.url + first.path, body, 10_000);
  const probe = await rpcCall(endpoint.url + first.path, nextBody(first), 10_000);
  const missing = (c.headers ?? []).filter((h) => !probe.headers.has(h));
  const problem =
    probe.status !== 200
      ? `HTTP ${probe.status}: ${probe.text.slice(0, 120)}`
      : missing.length
        ? `no ${missing.join(', ')} header: not the production listener`
        : c.check(probe.text);
  if (problem) throw new Error(problem);
  return probe.text;
}

/** The load of case `c`: its own connections and calls per round (`amount`), if it has them. */
export const loadSettings = (c, settings) => ({
  ...settings,
  connections: c.connections ?? settings.connections,
  amount: c.amount?.(settings),
});

const perRequest = (us, n) => (us === undefined || !(n > 0) ? undefined : us / n);

/**
 * `settings`: { duration, roundWarmup, connections, pipelining }; `knownPids`: every process
 * the bench accounts for (load generator, our targets, the peers); `probe`: the answer
 * before the first round, for cases whose answer must not change.
 */
export async function measureRound(c, endpoint, settings, knownPids, probe) {
  const load = loadSettings(c, settings);
  await c.refill?.(settings); // single-use bodies, made before the round: making them is not measured
  const { measure, warmUp } = loadFor(c);
  await warmUp(endpoint.url, c.requests, load, settings.roundWarmup);
  const before = await readEvidence(endpoint);
  const rss = c.peer ? sampleRss(endpoint.pid) : undefined;
  let window;
  const result = await measure(endpoint.url, c.requests, load, () => (window = cpuWindow()));
  const cpu = window.stop(knownPids);
  const peakPolledKb = rss?.stop();
  const after = await readEvidence(endpoint);
  const notes = [];
  const again = await rpcCall(endpoint.url + c.requests[0].path, nextBody(c.requests[0]), 10_000);
  const problem = again.status !== 200 ? `HTTP ${again.status}` : c.check(again.text);
  if (problem) notes.push(`answer after the round is wrong: ${problem}`);
  if (c.same && again.text !== probe) notes.push('answer after the round differs from the one before');
  const contention = contentionNote(cpu);
  return {
    ...result,
    cpuUsPerRequest: perRequest(cpu?.usedBy(endpoint.pid), result.totalRequests),
    // Only where the upstream is part of the path: elsewhere it is idle and this is tick noise.
    upstreamCpuUsPerRequest:
      c.layer === 'upstream' || c.peer
        ? perRequest(cpu?.usedBy(endpoint.upstreamPid), result.totalRequests)
        : undefined,
    loadGeneratorCpuUsPerRequest: perRequest(cpu?.usedBy(process.pid), result.totalRequests),
    othersCpuShare: cpu?.othersShare,
    stealShare: cpu?.stealShare,
    topOthers: cpu?.topOthers,
    contention,
    peakPolledKb,
    evidence: evidenceDelta(before, after),
    notes,
  };
}
