// One group, interleaved: start its servers, check and prime every row, warm each up once,
// then `rounds` rounds of every row in turn (A B C, A B C, ...). The servers stay up for all
// rounds and stop at the end of the group. Each row's endpoint says where its load goes (one
// URL, or several: autocannon spreads its connections over them), which processes serve it
// (their CPU is summed), and where its evidence is. Our targets are started once per distinct
// target and shared by the rows that name it; a row of `instances` (several servers, a Redis
// shared by the group's instances, and what its `before` starts and stops before the
// rounds) gets processes of its own. Each round: warm-up, load with a CPU window around the
// measured part, evidence read before and after, the answer checked again.
import { startRedisServer } from './cases-redis.mjs';
import { contentionNote, cpuWindow } from './contention.mjs';
import { addEvidence, evidenceDelta, readEvidence } from './evidence.mjs';
import { nextBody } from './load.mjs';
import { rpcCall } from './peers.mjs';
import { loadFor } from './socket-load.mjs';
import { readMemory, sampleRss } from './proc.mjs';
import { pinning, pinWhile, startTarget } from './processes.mjs';
import { measureRounds, remeasuredNote } from './rounds.mjs';
import { pairWithBaselines, summarise } from './summary.mjs';

/** Our target (with its upstream stand-in when it has one) as an instance of an endpoint. */
async function startOurs(target, nodeArgs, redis) {
  const args = [...(target.args ?? []), ...(target.redis ? ['--redis', redis.url] : [])];
  const upstream = target.upstream;
  const helper = upstream?.script && (await startTarget(upstream.script));
  if (helper?.absent) return { absent: `upstream: ${helper.absent}` };
  if (upstream) args.push('--upstream', helper?.url ?? upstream.url);
  const server = await startTarget(target.script, args, { nodeArgs }).catch(async (err) => {
    await helper?.stop();
    throw err;
  });
  const stop = async () => {
    await server.stop();
    await helper?.stop();
  };
  if (server.absent) return (await stop(), { absent: server.absent });
  return { ...server, upstreamPid: helper?.pid ?? upstream?.pid, helperUrl: helper?.url, stop };
}

/** The endpoint of a row from its started instances; several say whose CPU is counted, and on what CPUs. */
function endpointOf(instances, redisPid) {
  const [first] = instances;
  const cpus = pinning()?.targets;
  const notes = instances.length > 1 ? [`${instances.length} processes: CPU and RSS are their sum`] : [];
  if (notes.length && cpus && !/[-,]/.test(cpus))
    notes.push(`both instances and redis-server pinned to CPU ${cpus}: no CPU to scale on`);
  return {
    ...first,
    load: instances.length === 1 ? first.url : instances.map((i) => i.url),
    pids: instances.map((i) => i.pid),
    redisPid,
    // The stand-in's hits are counted once.
    instances: instances.map((i, k) => ({ ...i, helperUrl: k === 0 ? i.helperUrl : undefined })),
    notes: [...(first.notes ?? []), ...notes],
  };
}

const usesRedis = (c) => c.instances?.some((i) => i.redis);

/**
 * Starts what `cases` need. Returns `{ endpoints: Map<caseId, endpoint | { absent }>,
 * pids: every process started, stop() }`. `nodeArgs`: extra flags of our servers (--cpu-prof).
 */
async function startEndpoints(cases, nodeArgs = []) {
  const started = new Map();
  const endpoints = new Map();
  const redis = cases.some(usesRedis) ? await startRedisServer() : undefined;
  const stop = async () => {
    for (const e of started.values()) await e.stop();
    await redis?.stop?.();
  };
  const start = (target) => startOurs(target, nodeArgs, redis);
  const instance = async (key, target) => {
    if (!started.has(key)) started.set(key, await start(target));
    return started.get(key);
  };
  const endpointFor = async (c) => {
    if (c.absent || (usesRedis(c) && redis.absent)) return { absent: c.absent ?? redis.absent };
    if (c.peer) return { ...c.peer, pids: [c.peer.pid], load: c.peer.url, instances: [c.peer] };
    await c.before?.(start, redis); // e.g. another instance that learns what this row is asked, then stops
    const instances = [];
    for (const [k, target] of (c.instances ?? [c.target]).entries())
      instances.push(await instance(c.instances ? `${c.id}#${k}` : JSON.stringify(c.target), target));
    const absent = instances.find((i) => i.absent);
    return absent ? { absent: absent.absent } : endpointOf(instances, usesRedis(c) ? redis.pid : undefined);
  };
  try {
    for (const c of cases) endpoints.set(c.id, await endpointFor(c));
  } catch (err) {
    await stop();
    throw err;
  }
  const pids = [...started.values()].flatMap((e) => [e.pid, e.upstreamPid]).filter(Boolean);
  return { endpoints, pids: [...pids, redis?.pid].filter(Boolean), stop };
}

/** The load of case `c`: its own connections and calls per round (`amount`), if it has them. */
const loadSettings = (c, settings) => ({
  ...settings,
  connections: c.connections ?? settings.connections,
  amount: c.amount?.(settings),
});

/** The answer's problem, or undefined. */
const problemOf = (c, answer) => (answer.status !== 200 ? `HTTP ${answer.status}` : c.check(answer.text));

/** Primes the case's caches and checks its answer on one instance; returns the probe's text, or throws why not. */
async function checkAnswer(c, { url }) {
  const first = c.requests[0];
  for (const body of c.prime ?? []) await rpcCall(url + first.path, body, 10_000);
  const probe = await rpcCall(url + first.path, nextBody(first), 10_000);
  const missing = (c.headers ?? []).filter((h) => !probe.headers.has(h));
  const problem = missing.length
    ? `no ${missing.join(', ')} header: not the production listener`
    : problemOf(c, probe);
  if (problem) throw new Error(probe.status === 200 ? problem : `${problem}: ${probe.text.slice(0, 120)}`);
  return probe.text;
}

/** Checks and warms row `c`: `{ endpoint, probe }`, `{ absent }` or `{ error }`. */
async function prepare(c, endpoint, settings) {
  if (endpoint.absent) return { absent: endpoint.absent };
  try {
    await c.refill?.(settings);
    let probe;
    for (const i of endpoint.instances) probe = await checkAnswer(c, i);
    await loadFor(c).warmUp(endpoint.load, c.requests, loadSettings(c, settings), settings.warmup);
    return { endpoint, probe };
  } catch (err) {
    return { error: err.message };
  }
}

const perRequest = (us, n) => (us === undefined || !(n > 0) ? undefined : us / n);
const readAll = (endpoint) => Promise.all(endpoint.instances.map(readEvidence));

/** One round of row `c`. `knownPids`: every process the bench accounts for (load generator, targets, peers). */
async function measureRound(c, endpoint, settings, knownPids, probe) {
  const cpus = pinning()?.targets;
  const unpin =
    c.peer && cpus ? pinWhile([endpoint.pid, endpoint.upstreamPid].filter(Boolean), cpus) : undefined;
  try {
    return await measurePinnedRound(c, endpoint, settings, knownPids, probe);
  } finally {
    unpin?.();
  }
}

async function measurePinnedRound(c, endpoint, settings, knownPids, probe) {
  const load = loadSettings(c, settings);
  await c.refill?.(settings); // single-use bodies, made before the round: making them is not measured
  const { measure, warmUp } = loadFor(c);
  await warmUp(endpoint.load, c.requests, load, settings.roundWarmup);
  const before = await readAll(endpoint);
  const rss = c.peer ? sampleRss(endpoint.pid) : undefined;
  let window;
  const result = await measure(endpoint.load, c.requests, load, () => (window = cpuWindow()));
  const cpu = window.stop(knownPids);
  const peakPolledKb = rss?.stop();
  const deltas = (await readAll(endpoint)).map((after, k) => evidenceDelta(before[k], after));
  const evidence = addEvidence(deltas);
  const notes = [];
  const again = await rpcCall(endpoint.url + c.requests[0].path, nextBody(c.requests[0]), 10_000);
  const problem = problemOf(c, again);
  if (problem) notes.push(`answer after the round is wrong: ${problem}`);
  if (c.same && again.text !== probe) notes.push('answer after the round differs from the one before');
  if (c.fresh && evidence.layers.redis)
    notes.push(`${evidence.layers.redis} Redis hits: the fresh signatures ran out`);
  const n = result.totalRequests;
  const used = (pid) => cpu?.usedBy(pid);
  return {
    ...result,
    cpuUsPerRequest: perRequest(cpu && endpoint.pids.reduce((t, p) => t + (used(p) ?? 0), 0), n),
    // Only where the upstream is part of the path: elsewhere it is idle and this is tick noise.
    upstreamCpuUsPerRequest:
      c.layer === 'upstream' || c.peer ? perRequest(used(endpoint.upstreamPid), n) : undefined,
    redisCpuUsPerRequest: endpoint.redisPid ? perRequest(used(endpoint.redisPid), n) : undefined,
    callsPerInstance: deltas.map((d) => d.calls ?? 0),
    loadGeneratorCpuUsPerRequest: perRequest(used(process.pid), n),
    othersCpuShare: cpu?.othersShare,
    stealShare: cpu?.stealShare,
    topOthers: cpu?.topOthers,
    contention: contentionNote(cpu),
    peakPolledKb,
    evidence,
    notes,
  };
}

/**
 * `ctx`: { cases, settings, peerPids, log, nodeArgs }. Returns the group's rows, each
 * paired with its baselines from the same rounds.
 */
export async function measureGroup(group, ctx) {
  const { cases, settings, log } = ctx;
  const members = group.members.map((id) => cases.get(id));
  const { endpoints, pids, stop } = await startEndpoints(members, ctx.nodeArgs);
  const knownPids = [process.pid, ...pids, ...ctx.peerPids];
  try {
    const state = new Map();
    for (const c of members) state.set(c.id, await prepare(c, endpoints.get(c.id), settings));
    const measurable = members.filter((c) => state.get(c.id).endpoint);
    const { samples, errors, remeasured } = await measureRounds(measurable, settings, log, (c) =>
      measureRound(c, state.get(c.id).endpoint, settings, knownPids, state.get(c.id).probe),
    );
    for (const [id, error] of errors) state.get(id).error = error;
    const rows = members.map((c) => {
      const { absent, error } = state.get(c.id);
      const endpoint = endpoints.get(c.id);
      // Our servers' kernel high-water mark; the peers' highest RSS polled during the rounds.
      const hwm = c.peer || absent ? 0 : endpoint.pids.reduce((t, p) => t + (readMemory(p)?.hwmKb ?? 0), 0);
      const notes = [...(endpoint.notes ?? []), ...remeasuredNote(remeasured)];
      const rounds = Array.from({ length: settings.rounds }, (_, i) => samples.get(c.id)?.[i]);
      const connections = c.connections ?? settings.connections;
      const extra = { notes, connections, peakRssKb: hwm || undefined, absent, error };
      return summarise(c, group.name, rounds, { ...extra, remeasuredRounds: remeasured.length });
    });
    return pairWithBaselines(rows, cases);
  } finally {
    await stop();
  }
}
