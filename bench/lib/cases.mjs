// Every row of the table: what runs, what it is asked, what its answer must be, and
// which baseline it is compared with. Targets start one at a time, in this order.
import { benchSignatures } from '../targets/lib/fixtures.mjs';
import { TRIVIAL_REQUEST, TRIVIAL_RESULT } from '../targets/lib/trivial.mjs';
import { ROUTER_URL, VALIDATOR_URL } from './peers.mjs';
import {
  call,
  cycle,
  expectBatch,
  expectResult,
  expectStatuses,
  freshSignatureBodies,
  getRoutes,
  getSignatureStatuses,
} from './requests.mjs';

const STANDIN = { script: 'upstream-standin.mjs' };
const trivial = [{ path: '/', body: TRIVIAL_REQUEST }];
const isPong = expectResult((r) => r === TRIVIAL_RESULT, 'pong');

/** A batch of 10 mixed calls, all answerable from a primed memory cache. */
function mixedBatch(sigs) {
  const calls = [
    ['getRoutes'],
    ['getSignatureStatuses', [[sigs[0]]]],
    ['getRoutes'],
    ['getSignatureStatuses', [sigs.slice(1, 5)]],
    ['getSignatureStatuses', [[sigs[5]], { searchTransactionHistory: false }]],
    ['getRoutes'],
    ['getSignatureStatuses', [sigs.slice(6, 14)]],
    ['getRoutes'],
    ['getSignatureStatuses', [[sigs[14]]]],
    ['getRoutes'],
  ];
  return `[${calls.map(([m, p], i) => call(m, p, i + 1)).join(',')}]`;
}

export function buildCases({ peers, latency }) {
  const sigs = benchSignatures(256);
  const primed = [getSignatureStatuses(sigs)];
  const fresh1 = freshSignatureBodies(4096, 1);
  const fresh256 = freshSignatureBodies(300, 256);
  const peerAbsent = peers.available ? undefined : peers.reason;
  const onA = peers.signatures?.onValidator ?? [];
  const viaRouter = peers.signatures ? [peers.signatures.routerSent, ...onA] : [];

  const cases = [
    // Baselines
    {
      id: 'a',
      group: 'baseline',
      what: 'node:http fixed bytes (ceiling)',
      target: { script: 'fixed-http.mjs' },
      requests: trivial,
      check: isPong,
      same: true,
    },
    {
      id: 'b',
      group: 'baseline',
      what: 'Express 5 + express.json() + json-rpc-2.0',
      target: { script: 'express-jsonrpc.mjs' },
      requests: trivial,
      check: isPong,
      same: true,
    },
    {
      id: 'r.getRoutes',
      group: 'baseline',
      what: 'Rust Magic Router getRoutes',
      peer: { url: ROUTER_URL, pid: peers.routerPid },
      absent: peerAbsent,
      requests: [{ path: '/', body: getRoutes() }],
      check: expectResult(Array.isArray, 'a route list'),
      same: true,
    },
    {
      id: 'r.statuses-1',
      group: 'baseline',
      what: 'Router getSignatureStatuses, 1 sig (forwarded to A)',
      peer: { url: ROUTER_URL, pid: peers.routerPid },
      absent: peerAbsent,
      requests: [{ path: '/', body: getSignatureStatuses(viaRouter.slice(0, 1)) }],
      check: expectStatuses(1, { allKnown: true }),
    },
    {
      id: 'r.statuses-256',
      group: 'baseline',
      what: 'Router getSignatureStatuses, 256 sigs (forwarded to A)',
      peer: { url: ROUTER_URL, pid: peers.routerPid },
      absent: peerAbsent,
      requests: [{ path: '/', body: getSignatureStatuses(cycle(viaRouter, 256)) }],
      check: expectStatuses(256, { allKnown: true }),
    },
    {
      id: 'v.statuses-1',
      group: 'baseline',
      what: 'Validator A getSignatureStatuses, 1 known sig',
      peer: { url: VALIDATOR_URL, pid: peers.validatorPid },
      absent: peerAbsent,
      requests: [{ path: '/', body: getSignatureStatuses(onA.slice(0, 1)) }],
      check: expectStatuses(1, { allKnown: true }),
    },
    {
      id: 'v.statuses-256',
      group: 'baseline',
      what: 'Validator A getSignatureStatuses, 256 known sigs',
      peer: { url: VALIDATOR_URL, pid: peers.validatorPid },
      absent: peerAbsent,
      requests: [{ path: '/', body: getSignatureStatuses(cycle(onA, 256)) }],
      check: expectStatuses(256, { allKnown: true }),
    },
    {
      id: 'u.statuses-1',
      group: 'baseline',
      what: 'Upstream stand-in direct, 1 fresh sig',
      target: STANDIN,
      requests: [{ path: '/', bodies: fresh1 }],
      check: expectStatuses(1, { allKnown: true }),
    },
    {
      id: 'u.statuses-256',
      group: 'baseline',
      what: 'Upstream stand-in direct, 256 fresh sigs',
      target: STANDIN,
      requests: [{ path: '/', bodies: fresh256 }],
      check: expectStatuses(256, { allKnown: true }),
    },
    // Ours: the core alone
    {
      id: 'c',
      group: 'ours',
      what: 'core + expressRpc (Express 5), trivial method',
      target: { script: 'core-trivial.mjs', args: ['--adapter', 'express'] },
      requests: trivial,
      check: isPong,
      same: true,
      vs: ['b', 'a'],
    },
    {
      id: 'd',
      group: 'ours',
      what: 'core + createNodeListener, trivial method',
      target: { script: 'core-trivial.mjs', args: ['--adapter', 'node'] },
      requests: trivial,
      check: isPong,
      same: true,
      vs: ['a', 'b'],
    },
    {
      id: 'd.nolog',
      group: 'diagnostic',
      what: '(d) with logging off: what the log line costs',
      target: { script: 'core-trivial.mjs', args: ['--adapter', 'node', '--logging', 'off'] },
      requests: trivial,
      check: isPong,
      same: true,
      vs: ['a', 'd'],
    },
  ];

  // Ours: the reference server (routes + signature statuses), standalone and mounted.
  for (const adapter of ['node', 'express']) {
    const path = adapter === 'express' ? '/rpc' : '/';
    const ref = (statuses, upstream) => ({
      script: 'reference.mjs',
      args: ['--adapter', adapter, '--statuses', statuses],
      upstream,
    });
    const via = adapter === 'express' ? ' (Express host app, /rpc)' : '';
    cases.push(
      {
        id: `${adapter}.getRoutes`,
        group: 'ours',
        what: `getRoutes, 10 nodes${via}`,
        target: ref('memory'),
        requests: [{ path, body: getRoutes() }],
        check: expectResult((r) => Array.isArray(r) && r.length === 10, '10 routes'),
        same: true,
        vs: ['r.getRoutes'],
      },
      ...[1, 256].flatMap((n) => [
        {
          id: `${adapter}.statuses-memory-${n}`,
          group: 'ours',
          what: `getSignatureStatuses ${n}, memory (primed)${via}`,
          target: ref('memory', STANDIN),
          prime: primed,
          layer: 'memory',
          requests: [{ path, body: getSignatureStatuses(sigs.slice(0, n)) }],
          check: expectStatuses(n, { allKnown: true }),
          same: true,
          vs: [`r.statuses-${n}`, `v.statuses-${n}`],
        },
        {
          id: `${adapter}.statuses-sqlite-${n}`,
          group: 'ours',
          what: `getSignatureStatuses ${n}, SQLite (no memory cache)${via}`,
          target: ref('sqlite', STANDIN),
          prime: primed,
          layer: 'store',
          requests: [{ path, body: getSignatureStatuses(sigs.slice(0, n)) }],
          check: expectStatuses(n, { allKnown: true }),
          same: true,
          vs: [`r.statuses-${n}`, `v.statuses-${n}`],
        },
        {
          id: `${adapter}.statuses-upstream-${n}`,
          group: 'ours',
          what: `getSignatureStatuses ${n}, via upstream stand-in${via}`,
          target: ref('upstream', STANDIN),
          layer: 'upstream',
          requests: [{ path, bodies: n === 1 ? fresh1 : fresh256 }],
          check: expectStatuses(n, { allKnown: true }),
          vs: [`u.statuses-${n}`, `r.statuses-${n}`],
        },
      ]),
      {
        id: `${adapter}.batch-10`,
        group: 'ours',
        what: `batch of 10 mixed calls (memory)${via}`,
        target: ref('memory', STANDIN),
        prime: primed,
        layer: 'memory',
        requests: [{ path, body: mixedBatch(sigs) }],
        check: expectBatch(10),
        same: true,
      },
    );
    if (adapter === 'node') {
      for (const n of [1, 256]) {
        cases.push({
          id: `node.statuses-validator-${n}`,
          group: 'ours',
          what: `getSignatureStatuses ${n}, via validator A (fresh sigs)`,
          target: ref('upstream', { url: VALIDATOR_URL }),
          absent: peerAbsent,
          layer: 'upstream',
          requests: [{ path, bodies: n === 1 ? fresh1 : fresh256 }],
          check: expectStatuses(n, { allKnown: false }),
          vs: [`v.fresh-${n}`, `r.statuses-${n}`],
        });
      }
    }
  }
  // Validator A direct with the same fresh (unknown) signatures, next to the row above.
  for (const n of [1, 256]) {
    cases.splice(
      cases.findIndex((c) => c.id === 'u.statuses-1'),
      0,
      {
        id: `v.fresh-${n}`,
        group: 'baseline',
        what: `Validator A getSignatureStatuses, ${n} fresh (unknown) sig${n > 1 ? 's' : ''}`,
        peer: { url: VALIDATOR_URL, pid: peers.validatorPid },
        absent: peerAbsent,
        requests: [{ path: '/', bodies: n === 1 ? fresh1 : fresh256 }],
        check: expectStatuses(n, { allKnown: false }),
      },
    );
  }

  // Added latency of the upstream path without queueing: one connection, closed loop.
  if (latency) {
    for (const base of [
      'u.statuses-1',
      'node.statuses-upstream-1',
      'v.fresh-1',
      'node.statuses-validator-1',
    ]) {
      const c = cases.find((x) => x.id === base);
      cases.push({
        ...c,
        id: `lat.${base}`,
        what: `${c.what} - 1 connection`,
        connections: 1,
        vs: c.vs?.map((v) => `lat.${v}`),
      });
    }
  }
  return cases;
}
