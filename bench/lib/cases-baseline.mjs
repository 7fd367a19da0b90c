// The baselines: what users would run instead, measured on the same machine in the same
// run. Bare node:http (Node's ceiling), Express + json-rpc-2.0 written by hand, the real
// Rust Magic Router and validator A from ../shared/peers, and the loopback upstream stand-in.
import { routesResponse } from '../targets/lib/fixtures.mjs';
import { TRIVIAL_REQUEST } from '../targets/lib/trivial.mjs';
import { ROUTER_URL, VALIDATOR_URL } from './peers.mjs';
import {
  cycle,
  expectResult,
  expectStatuses,
  getRoutes,
  getSignatureStatuses,
  tenRoutes,
} from './requests.mjs';

export const STANDIN = { script: 'upstream-standin.mjs' };

/** Bare node:http (Node's ceiling, same bytes) and Express + json-rpc-2.0 by hand. */
function nodeCases(isPong) {
  const trivial = [{ path: '/', body: TRIVIAL_REQUEST }];
  const base = { group: 'baseline', same: true };
  return [
    {
      ...base,
      id: 'a',
      what: 'node:http fixed bytes, trivial answer (ceiling)',
      target: { script: 'fixed-http.mjs' },
      requests: trivial,
      check: isPong,
    },
    getRoutesBytes('a.getRoutes', 'node:http fixed bytes, the getRoutes answer (ceiling)'),
    ...aroundTheCeiling(),
    {
      ...base,
      id: 'b',
      what: 'Express 5 + express.json() + json-rpc-2.0, by hand',
      target: { script: 'express-jsonrpc.mjs' },
      requests: trivial,
      check: isPong,
    },
  ];
}

/** Bare node:http answering getRoutes's bytes; `args` give it the reference server's head or add work. */
const getRoutesBytes = (id, what, args = [], vs = undefined) => ({
  group: 'baseline',
  same: true,
  id,
  what,
  target: { script: 'fixed-http.mjs', args: ['--body', routesResponse(10), ...args] },
  requests: [{ path: '/', body: getRoutes() }],
  check: tenRoutes,
  ...(vs && { vs }),
});

/**
 * Row a.getRoutes with the reference server's head, then with busy work added per request:
 * how much of our distance to row a is the head we write, and what one µs of work in a
 * handler costs the process at 50 connections (more than the µs: fewer requests share
 * each turn of the event loop and each wake-up). A full-run diagnostic, no goal.
 */
function aroundTheCeiling() {
  const head = ['--headers', 'server'];
  return [
    getRoutesBytes('a.getRoutes.head', "(a.getRoutes) with the reference server's head", head, [
      'a.getRoutes',
    ]),
    ...[25, 50].map((us) =>
      getRoutesBytes(
        `a.getRoutes.work-${us}`,
        `(a.getRoutes) with the server's head and ${us} µs of busy work per request`,
        [...head, '--spin-us', String(us)],
        ['a.getRoutes'],
      ),
    ),
  ];
}

/** The peers' rows and the stand-in's for `n` signatures. */
function statusesCases(n, { fresh1, fresh256, onA, viaRouter, peerAbsent, pids }) {
  const peer = (id, what, p, signatures, allKnown) => ({
    id,
    group: 'baseline',
    what,
    peer: p,
    absent: peerAbsent,
    requests: [{ path: '/', body: getSignatureStatuses(signatures) }],
    check: expectStatuses(n, { allKnown }),
  });
  const router = { url: ROUTER_URL, pid: pids.router, upstreamPid: pids.validatorA };
  const validator = { url: VALIDATOR_URL, pid: pids.validatorA };
  const fresh = [{ path: '/', bodies: n === 1 ? fresh1 : fresh256 }];
  return [
    peer(
      `r.statuses-${n}`,
      `Rust router getSignatureStatuses ${n}, forwarded to A`,
      router,
      cycle(viaRouter, n),
      true,
    ),
    peer(
      `v.statuses-${n}`,
      `Validator A getSignatureStatuses ${n} known, from its ledger`,
      validator,
      cycle(onA, n),
      true,
    ),
    {
      ...peer(`v.fresh-${n}`, `Validator A getSignatureStatuses ${n} fresh (unknown)`, validator, [], false),
      requests: fresh,
    },
    {
      id: `u.statuses-${n}`,
      group: 'baseline',
      what: `Upstream stand-in direct, ${n} fresh`,
      target: STANDIN,
      requests: fresh,
      check: expectStatuses(n, { allKnown: true }),
    },
  ];
}

/** `inputs`: { isPong, fresh1, fresh256, onA, viaRouter, peerAbsent, pids } from groups.mjs buildCases. */
export function baselineCases(inputs) {
  const { pids, peerAbsent } = inputs;
  return [
    ...nodeCases(inputs.isPong),
    {
      id: 'r.getRoutes',
      group: 'baseline',
      what: 'Rust Magic Router getRoutes',
      peer: { url: ROUTER_URL, pid: pids.router },
      absent: peerAbsent,
      requests: [{ path: '/', body: getRoutes() }],
      check: expectResult(Array.isArray, 'a route list'),
      same: true,
    },
    ...statusesCases(1, inputs),
    ...statusesCases(256, inputs),
  ];
}
