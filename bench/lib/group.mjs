// One group, interleaved: start its servers, check and prime every row, warm each up
// once, then `rounds` rounds of every row in turn (A B C, A B C, ...). The servers stay
// up for all rounds and stop at the end of the group.
import { startEndpoints } from './endpoints.mjs';
import { readMemory } from './proc-status.mjs';
import { waitForQuiet } from './quiet.mjs';
import { checkAnswer, measureRound } from './round.mjs';
import { pairWithBaselines, summarise } from './summary.mjs';
import { loadFor } from './transports.mjs';

const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** Checks and warms each row; returns Map<id, { endpoint, probe } | { absent } | { error }>. */
async function prepare(members, endpoints, settings) {
  const state = new Map();
  for (const c of members) {
    const endpoint = endpoints.get(c.id);
    if (endpoint.absent) {
      state.set(c.id, { absent: endpoint.absent });
      continue;
    }
    try {
      const probe = await checkAnswer(c, endpoint);
      const load = { ...settings, connections: c.connections ?? settings.connections };
      await loadFor(c).warmUp(endpoint.url, c.requests, load, settings.warmup);
      state.set(c.id, { endpoint, probe });
    } catch (err) {
      state.set(c.id, { error: err.message });
    }
  }
  return state;
}

/**
 * `ctx`: { cases, settings, peerPids, log, nodeArgs }. Returns the group's rows, each
 * paired with its baselines from the same rounds.
 */
export async function measureGroup(group, ctx) {
  const { cases, settings, log } = ctx;
  const members = group.members.map((id) => cases.get(id));
  const { endpoints, pids, stop } = await startEndpoints(members, { nodeArgs: ctx.nodeArgs });
  const knownPids = [process.pid, ...pids, ...ctx.peerPids];
  const samples = new Map(members.map((c) => [c.id, []]));
  let state;
  try {
    state = await prepare(members, endpoints, settings);
    for (let round = 0; round < settings.rounds; round++) {
      if (settings.quietWait > 0) await waitForQuiet({ maxWaitMs: settings.quietWait * 1000 });
      for (const c of members) {
        const s = state.get(c.id);
        if (!s.endpoint) continue;
        try {
          const sample = await measureRound(c, s.endpoint, settings, knownPids, s.probe);
          samples.get(c.id)[round] = sample;
          const note = sample.contention ? `  [${sample.contention}]` : '';
          log(`  round ${round + 1}/${settings.rounds} ${c.id}: ${fmt(sample.reqPerSec)} req/s${note}`);
        } catch (err) {
          s.error = `round ${round + 1}: ${err.message}`;
          delete s.endpoint; // a server that failed once is not measured again
          log(`  round ${round + 1}/${settings.rounds} ${c.id}: ${s.error}`);
        }
      }
    }
    // Our servers' kernel high-water mark; the peers' highest RSS polled during the rounds.
    const hwm = new Map(
      members.map((c) => [c.id, c.peer ? undefined : readMemory(endpoints.get(c.id).pid)?.hwmKb]),
    );
    const rows = members.map((c) =>
      summarise(
        c,
        group.name,
        Array.from({ length: settings.rounds }, (_, i) => samples.get(c.id)[i]),
        {
          notes: endpoints.get(c.id).notes,
          connections: c.connections ?? settings.connections,
          peakRssKb: hwm.get(c.id),
          error: state.get(c.id).error,
          absent: state.get(c.id).absent,
        },
      ),
    );
    return pairWithBaselines(rows, cases);
  } finally {
    await stop();
  }
}
