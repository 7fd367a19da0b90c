// The comparison run (`npm run bench`): the peers looked up, the groups of rows chosen,
// each group measured interleaved, the goals computed from the same run.
import { buildCases } from './cases.mjs';
import { computeGoals } from './goals.mjs';
import { measureGroup } from './group.mjs';
import { selectGroups } from './groups.mjs';
import { preparePeers, releasePeers } from './peers.mjs';

// Per row: start, probe and prime ~2 s, warm-up once; per round: warm-up, measured, and
// ~0.5 s of evidence and answer checks (fitted to the quick and smoke runs on 2 vCPUs).
const plannedSeconds = (groups, s) =>
  groups.reduce(
    (t, g) => t + g.members.length * (2 + s.warmup + s.rounds * (s.roundWarmup + s.duration + 0.5)),
    0,
  );

/** Returns `{ peers, groups, rows, goals }`; `log` gets the progress. */
export async function compare(options, settings, log) {
  const peers = await preparePeers({ enabled: options.peers, start: options.startPeers });
  for (const line of peers.log) log(line);
  try {
    const cases = buildCases(peers);
    const groups = selectGroups(options, cases);
    const rows = groups.reduce((n, g) => n + g.members.length, 0);
    log(
      peers.available
        ? `peers: router pid ${peers.pids.router}, validator A pid ${peers.pids.validatorA}`
        : `peers: absent (${peers.reason})`,
    );
    log(
      `plan: ${rows} rows in ${groups.length} groups, ${settings.rounds} interleaved rounds of ${settings.duration} s, ` +
        `about ${Math.ceil(plannedSeconds(groups, settings) / 60)} min`,
    );
    const peerPids = Object.values(peers.pids ?? {}).filter(Boolean);
    const all = [];
    for (const [i, group] of groups.entries()) {
      log(`[${i + 1}/${groups.length}] ${group.name}: ${group.members.join(', ')}`);
      all.push(...(await measureGroup(group, { cases, settings, peerPids, log })));
    }
    return { peers, groups, rows: all, goals: computeGoals(all) };
  } finally {
    await releasePeers(peers);
  }
}
