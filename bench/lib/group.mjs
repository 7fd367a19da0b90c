// One group, interleaved: start its servers, check and prime every row, warm each up
// once, then `rounds` rounds of every row in turn (A B C, A B C, ...). The servers stay
// up for all rounds and stop at the end of the group.
import { startEndpoints } from './endpoints.mjs';
import { readMemory } from './proc-status.mjs';
import { checkAnswer, loadSettings, measureRound } from './round.mjs';
import { measureRounds, remeasuredNote } from './rounds.mjs';
import { pairWithBaselines, summarise } from './summary.mjs';
import { loadFor } from './transports.mjs';

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
      await c.refill?.(settings);
      const probe = await checkAnswer(c, endpoint);
      await loadFor(c).warmUp(endpoint.url, c.requests, loadSettings(c, settings), settings.warmup);
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
  try {
    const state = await prepare(members, endpoints, settings);
    const measurable = members.filter((c) => state.get(c.id).endpoint);
    const { samples, errors, remeasured } = await measureRounds(measurable, settings, log, (c) =>
      measureRound(c, state.get(c.id).endpoint, settings, knownPids, state.get(c.id).probe),
    );
    for (const [id, error] of errors) state.get(id).error = error;
    // Our servers' kernel high-water mark; the peers' highest RSS polled during the rounds.
    const hwm = new Map(
      members.map((c) => [c.id, c.peer ? undefined : readMemory(endpoints.get(c.id).pid)?.hwmKb]),
    );
    const rows = members.map((c) =>
      summarise(
        c,
        group.name,
        Array.from({ length: settings.rounds }, (_, i) => samples.get(c.id)?.[i]),
        {
          notes: [...endpoints.get(c.id).notes, ...remeasuredNote(remeasured)],
          remeasuredRounds: remeasured.length,
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
