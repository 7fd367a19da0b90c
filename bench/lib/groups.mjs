// Every row the bench can measure, by id (buildCases: what runs, what it is asked, what its
// answer must be, which baselines it is compared with), and which rows are measured
// together. The rows of a group run interleaved, round after round (A B C, A B C, ...), so a
// row and the baselines it is compared with see the same machine; a ratio is only ever taken
// between rows of one group. `quick` groups are the main cases (every goal); the full run
// adds the diagnostic groups and rows. compare() is the main run: the peers looked up, the
// groups chosen, each measured, the goals computed from the same run.
import { benchSignatures } from '../targets/lib/fixtures.mjs';
import { TRIVIAL_RESULT } from '../targets/lib/trivial.mjs';
import { baselineCases } from './cases-baseline.mjs';
import { delegationCases } from './cases-delegation.mjs';
import { ourCases } from './cases-ours.mjs';
import { redisCases } from './cases-redis.mjs';
import { computeGoals } from './goals.mjs';
import { measureGroup } from './group.mjs';
import { preparePeers } from './peers.mjs';
import { expectResult } from './checks.mjs';
import { freshSignatureBodies, getSignatureStatuses } from './requests.mjs';

// Each group: `name = the rows of quick mode (and of the full run) | the rows the full run adds`.
// ws.*: issue 10's socket vs HTTP, the same calls to the same server in the same rounds;
// sampled.*, traced.*: options (call log sampled, traces on) beside the default they are not.
// node:http ceiling: what lies between row a and ours that is not our code, the head we write
// and what added work costs beyond itself. The delegation router's rows are the SDKs' methods.
// Several instances and Redis (cases-redis.mjs): with them the quick run would not fit its 5 minutes.
export const GROUPS = [
  'getRoutes = prod.getRoutes lean.getRoutes sampled.getRoutes r.getRoutes a.getRoutes ws.getRoutes | traced.getRoutes',
  'statuses, 1 signature = prod.statuses-memory-1 sampled.statuses-memory-1 v.statuses-1 r.statuses-1 ws.statuses-memory-1 | lean.statuses-memory-1 traced.statuses-memory-1',
  'statuses, 256 signatures = prod.statuses-memory-256 v.statuses-256 r.statuses-256 | lean.statuses-memory-256',
  'statuses, 256 fresh signatures = prod.statuses-validator-256 v.fresh-256',
  'Express adapter = c b',
  'delegation router: sendTransaction to A, 1 connection = dlg.sendTransaction v.sendTransaction p.sendTransaction r.sendTransaction',
  'delegation router: getAccountInfo passed through to A, 1 connection = dlg.getAccountInfo v.getAccountInfo p.getAccountInfo r.getAccountInfo | pf.getAccountInfo',
  'delegation router: getSlot passed through to A, 1 connection = dlg.getSlot v.getSlot p.getSlot r.getSlot | pf.getSlot',
  'delegation router: getBlockhashForAccounts = | dlg.blockhash-empty r.blockhash-empty dlg.blockhash-account r.blockhash-account',
  'core, trivial method = | d d.nolog a',
  'node:http ceiling, head, log line and work added = | a.getRoutes a.getRoutes.head a.getRoutes.head-log lean.getRoutes prod.getRoutes a.getRoutes.work-25 a.getRoutes.work-50',
  'answer layers, 1 signature = | prod.statuses-sqlite-1 prod.statuses-upstream-1 u.statuses-1 prod.statuses-validator-1 v.fresh-1',
  'answer layers, 256 signatures = | prod.statuses-sqlite-256 prod.statuses-upstream-256 u.statuses-256',
  'embedded in a host Express app, batches = | express.getRoutes prod.getRoutes express.statuses-memory-1 prod.statuses-memory-1 prod.batch-10',
  'upstream path, 1 connection = | lat.prod.statuses-upstream-1 lat.u.statuses-1 lat.prod.statuses-validator-1 lat.v.fresh-1',
  'one vs two instances + Redis, getRoutes = | scale.one.getRoutes scale.one-redis.getRoutes scale.two-redis.getRoutes',
  'one vs two instances + Redis, 1 signature = | scale.one.statuses-memory-1 scale.one-redis.statuses-memory-1 scale.two-redis.statuses-memory-1',
  'Redis layer latency, 1 connection = | redis.miss.off-1 redis.miss.on-1 redis.hit.memory-1 redis.hit.redis-1',
].map((line) => {
  const [name, rows] = line.split(' = ');
  const [quick, full = ''] = rows.split('|').map((ids) => ids.split(' ').filter(Boolean));
  return { name, quick, full };
});

/**
 * The groups to run: quick mode keeps the quick rows, the full run all of them; `only`
 * (a RegExp) keeps the rows whose id matches, with the baselines they are compared with.
 */
export function selectGroups({ quick, only }, cases) {
  return GROUPS.map((g) => {
    let members = [...g.quick, ...(quick ? [] : g.full)];
    if (only) {
      const wanted = new Set(members.filter((id) => only.test(id)));
      for (const id of [...wanted])
        for (const v of cases.get(id)?.vs ?? []) if (members.includes(v)) wanted.add(v);
      members = members.filter((id) => wanted.has(id));
    }
    return { name: g.name, members };
  }).filter((g) => g.members.length > 0);
}

/** Latency without queueing: one connection, closed loop, for the upstream paths. */
const ONE_CONNECTION = ['u.statuses-1', 'prod.statuses-upstream-1', 'v.fresh-1', 'prod.statuses-validator-1'];

/** `peers`: from preparePeers(). Returns Map<id, case>. */
export function buildCases(peers) {
  const sigs = benchSignatures(256);
  const onA = peers.signatures?.onValidator ?? [];
  const inputs = {
    sigs,
    primed: [getSignatureStatuses(sigs)],
    fresh1: freshSignatureBodies(4096, 1),
    fresh256: freshSignatureBodies(300, 256),
    isPong: expectResult((r) => r === TRIVIAL_RESULT, 'pong'),
    onA,
    viaRouter: peers.signatures ? [peers.signatures.routerSent, ...onA] : [],
    peerAbsent: peers.available ? undefined : peers.reason,
    pids: peers.pids ?? {},
  };
  const cases = [...baselineCases(inputs), ...ourCases(inputs), ...delegationCases(inputs), ...redisCases()];
  for (const id of ONE_CONNECTION) {
    const c = cases.find((x) => x.id === id);
    cases.push({
      ...c,
      id: `lat.${id}`,
      what: `${c.what}, 1 connection`,
      connections: 1,
      vs: c.vs?.map((v) => `lat.${v}`),
    });
  }
  return new Map(cases.map((c) => [c.id, c]));
}

// Per row: start, probe and prime ~2 s, warm-up once; per round: warm-up, measured, and
// ~0.5 s of evidence and answer checks (fitted to the quick and smoke runs on 2 vCPUs).
const plannedSeconds = (groups, s) =>
  groups.reduce(
    (t, g) => t + g.members.length * (2 + s.warmup + s.rounds * (s.roundWarmup + s.duration + 0.5)),
    0,
  );

/** Returns `{ peers, groups, rows, goals }`; `log` gets the progress. */
export async function compare(options, settings, log) {
  const peers = await preparePeers({ enabled: options.peers });
  for (const line of peers.log) log(line);
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
}
