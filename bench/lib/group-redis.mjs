// Measures the groups of cases-redis.mjs the way group.mjs measures the others (rows
// interleaved round after round, same load settings, evidence and CPU per round), with
// what those rows need and group.mjs does not do: a redis-server, several server
// processes behind one row (autocannon spreads the connections over their URLs), and
// an instance that learns a status and stops before the rounds.
import { contentionNote, cpuWindow } from './contention.mjs';
import { REDIS_GROUPS, redisCases } from './cases-redis.mjs';
import { addEvidence, evidenceDelta, readEvidence } from './evidence.mjs';
import { measureLoad, warmUp } from './load.mjs';
import { rpcCall } from './peers.mjs';
import { readMemory } from './proc-status.mjs';
import { pinning, startTarget } from './processes.mjs';
import { redisHasKey, startRedisServer } from './redis-server.mjs';
import { checkAnswer } from './round.mjs';
import { measureRounds, remeasuredNote } from './rounds.mjs';
import { addedNote, median, pairWithBaselines, summarise } from './summary.mjs';

const KEY_PREFIX = 'rollup-router:'; // the server's default redis.keyPrefix

const cases = redisCases();

/** The Redis groups of this run: none in quick mode; with `only`, the matching rows and their baselines. */
export function redisGroups({ quick, only }) {
  if (quick) return [];
  return REDIS_GROUPS.map((g) => {
    let members = g.members;
    if (only) {
      const wanted = new Set(members.filter((id) => only.test(id)));
      for (const id of [...wanted]) for (const v of cases.get(id).vs ?? []) wanted.add(v);
      members = members.filter((id) => wanted.has(id));
    }
    return { name: g.name, members, measure: measureRedisGroup };
  }).filter((g) => g.members.length > 0);
}

const usesRedis = (row) => row.instances.some((i) => i.redis);

const instanceArgs = (spec, shared) => [
  '--statuses',
  spec.statuses,
  '--rate-limit',
  spec.rateLimit ? 'on' : 'off',
  '--upstream',
  shared.standin.url,
  ...(spec.redis ? ['--redis', shared.redis.url] : []),
];

async function startInstance(spec, shared, nodeArgs) {
  const t = await startTarget('server-shared.mjs', instanceArgs(spec, shared), { nodeArgs });
  if (t.absent) throw new Error(t.absent);
  return t;
}

/** Instance 1 learns `signatures` from the upstream, Redis gets them, instance 1 stops. */
async function learnThroughOtherInstance(row, shared, nodeArgs) {
  const learner = await startInstance(row.learner, shared, nodeArgs);
  try {
    await rpcCall(
      learner.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [row.learn] }),
      10_000,
    );
    const deadline = Date.now() + 5000;
    const keys = row.learn.map((s) => `${KEY_PREFIX}status:${s}`);
    while (!keys.every((k) => redisHasKey(shared.redis.port, k))) {
      if (Date.now() > deadline)
        throw new Error('instance 1 answered but Redis did not get the status in 5 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await learner.stop();
  }
}

/** Starts a row's instances, primes and checks each, warms the row up. */
async function prepareRow(row, shared, settings, nodeArgs) {
  if (usesRedis(row) && shared.redis.absent) return { absent: shared.redis.absent };
  if (shared.standin.absent) return { absent: `upstream stand-in: ${shared.standin.absent}` };
  const instances = [];
  const stop = async () => {
    for (const i of instances) await i.stop();
  };
  try {
    if (row.learner) await learnThroughOtherInstance(row, shared, nodeArgs);
    for (const spec of row.instances) instances.push(await startInstance(spec, shared, nodeArgs));
    let probe;
    for (const i of instances) probe = await checkAnswer(row, i);
    const urls = instances.map((i) => i.url);
    // One URL as a string: load.mjs sends a single request as url+body, cheapest for the client.
    const target = urls.length === 1 ? urls[0] : urls;
    await warmUp(target, row.requests, load(row, settings), settings.warmup);
    return { instances, target, probe, stop };
  } catch (err) {
    await stop();
    return { error: err.message };
  }
}

const load = (row, settings) => ({ ...settings, connections: row.connections ?? settings.connections });
const perRequest = (us, n) => (us === undefined || !(n > 0) ? undefined : us / n);
const sumUsed = (cpu, pids) => (cpu ? pids.reduce((t, p) => t + (cpu.usedBy(p) ?? 0), 0) : undefined);

/** Evidence of every instance of a row (the stand-in's hits counted once). */
const readAll = (ep, shared) =>
  Promise.all(
    ep.instances.map((i, k) => readEvidence({ ...i, helperUrl: k === 0 ? shared.standin.url : undefined })),
  );

/** One round of one row; the sample has the fields summarise() reads. */
async function measureRow(row, ep, shared, settings, knownPids) {
  await warmUp(ep.target, row.requests, load(row, settings), settings.roundWarmup);
  const before = await readAll(ep, shared);
  let window;
  const result = await measureLoad(
    ep.target,
    row.requests,
    load(row, settings),
    () => (window = cpuWindow()),
  );
  const cpu = window.stop(knownPids);
  const after = await readAll(ep, shared);
  const deltas = after.map((a, k) => evidenceDelta(before[k], a));
  const evidence = addEvidence(deltas);
  const notes = [];
  const again = await rpcCall(ep.instances[0].url, row.requests[0].body ?? row.requests[0].bodies[0], 10_000);
  const problem = again.status !== 200 ? `HTTP ${again.status}` : row.check(again.text);
  if (problem) notes.push(`answer after the round is wrong: ${problem}`);
  if (row.same && again.text !== ep.probe) notes.push('answer after the round differs from the one before');
  if (row.fresh && evidence.layers.redis)
    notes.push(`${evidence.layers.redis} Redis hits: the fresh signatures ran out`);
  const n = result.totalRequests;
  return {
    ...result,
    cpuUsPerRequest: perRequest(
      sumUsed(
        cpu,
        ep.instances.map((i) => i.pid),
      ),
      n,
    ),
    upstreamCpuUsPerRequest:
      row.layer === 'upstream' ? perRequest(cpu?.usedBy(shared.standin.pid), n) : undefined,
    redisCpuUsPerRequest: usesRedis(row) ? perRequest(cpu?.usedBy(shared.redis.pid), n) : undefined,
    callsPerInstance: deltas.map((d) => d.calls ?? 0),
    loadGeneratorCpuUsPerRequest: perRequest(cpu?.usedBy(process.pid), n),
    othersCpuShare: cpu?.othersShare,
    stealShare: cpu?.stealShare,
    topOthers: cpu?.topOthers,
    contention: contentionNote(cpu),
    evidence,
    notes,
  };
}

/** What a row of several instances must say: whose CPU it counts, and whether they had CPUs to scale on. */
function sharingNotes(row) {
  const notes = [`${row.instances.length} processes: CPU and RSS are their sum`];
  const cpus = pinning()?.targets;
  if (cpus && !/[-,]/.test(cpus))
    notes.push(`both instances and redis-server pinned to CPU ${cpus}: no CPU to scale on`);
  return notes;
}

/** The redis-server and the upstream stand-in every row of a group shares. */
async function startShared(members) {
  const needsRedis = members.some(usesRedis);
  const redis = needsRedis ? await startRedisServer() : { absent: 'not needed' };
  const standin = await startTarget('upstream-standin.mjs');
  return {
    redis,
    standin,
    stop: async () => {
      await standin.stop?.();
      await redis.stop?.();
    },
  };
}

/** Notes a reader of the table needs: Redis's own CPU, and what each row adds to its baselines' latency. */
function addNotes(rows) {
  for (const row of rows) {
    const redisUs = median(row.samples.filter(Boolean).map((s) => s.redisCpuUsPerRequest));
    if (row.rounds && redisUs > 0) row.notes.unshift(`redis-server ${redisUs.toFixed(1)} CPU µs/req`);
    const split = row.samples.filter(Boolean).map((s) => s.callsPerInstance);
    if (split[0]?.length > 1) {
      const perInstance = split[0].map((_, k) => split.reduce((t, calls) => t + calls[k], 0));
      row.notes.unshift(`calls per instance: ${perInstance.join(' / ')}`);
    }
    for (const v of row.vs ?? []) row.notes.unshift(addedNote(v));
  }
  return rows;
}

/** group.mjs's measureGroup for the Redis rows: same `ctx`, same kind of rows back. */
export async function measureRedisGroup(group, ctx) {
  const { settings } = ctx;
  const members = group.members.map((id) => cases.get(id));
  const shared = await startShared(members);
  const state = new Map();
  try {
    for (const row of members) state.set(row.id, await prepareRow(row, shared, settings, ctx.nodeArgs));
    const pids = [...state.values()].flatMap((ep) => (ep.instances ?? []).map((i) => i.pid));
    const knownPids = [process.pid, shared.standin.pid, shared.redis.pid, ...pids, ...ctx.peerPids];
    const measurable = members.filter((row) => state.get(row.id).instances);
    const { samples, errors, remeasured } = await measureRounds(measurable, settings, ctx.log, (row) =>
      measureRow(row, state.get(row.id), shared, settings, knownPids),
    );
    for (const [id, error] of errors) state.get(id).error = error;
    const rows = members.map((row) => {
      const ep = state.get(row.id);
      const hwm = ep.instances?.reduce((t, i) => t + (readMemory(i.pid)?.hwmKb ?? 0), 0);
      return summarise(
        row,
        group.name,
        Array.from({ length: settings.rounds }, (_, i) => samples.get(row.id)?.[i]),
        {
          notes: [...(row.instances.length > 1 ? sharingNotes(row) : []), ...remeasuredNote(remeasured)],
          remeasuredRounds: remeasured.length,
          connections: row.connections ?? settings.connections,
          peakRssKb: hwm || undefined,
          error: ep.error,
          absent: ep.absent,
        },
      );
    });
    return addNotes(pairWithBaselines(rows, cases));
  } finally {
    for (const ep of state.values()) await ep.stop?.();
    await shared.stop();
  }
}
