// Every row the bench can measure, by id: what runs, what it is asked, what its answer
// must be, and which baselines it is compared with (`vs`, measured in the same rounds).
// Which rows run together, and in which mode, is groups.mjs.
import { benchSignatures } from '../targets/lib/fixtures.mjs';
import { TRIVIAL_RESULT } from '../targets/lib/trivial.mjs';
import { baselineCases } from './cases-baseline.mjs';
import { delegationCases } from './cases-delegation.mjs';
import { ourCases } from './cases-ours.mjs';
import { redisCases } from './cases-redis.mjs';
import { expectResult, freshSignatureBodies, getSignatureStatuses } from './requests.mjs';

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
