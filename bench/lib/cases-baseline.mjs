// The baselines: what users would run instead, measured on the same machine in the same
// run. Bare node:http (Node's ceiling), Express + json-rpc-2.0 written by hand, the real
// Rust Magic Router and validator A from ../shared/peers, and the loopback upstream stand-in.
import { routesResponse } from '../targets/lib/fixtures.mjs';
import { TRIVIAL_REQUEST } from '../targets/lib/trivial.mjs';
import { ROUTER_URL, VALIDATOR_URL } from './peers.mjs';
import { expectResult, expectStatuses, tenRoutes } from './checks.mjs';
import { cycle, getRoutes, getSignatureStatuses, post } from './requests.mjs';

export const STANDIN = { script: 'upstream-standin.mjs' };

/** Bare node:http answering getRoutes's bytes; `args` give it the reference server's head or add work. */
const routesBytes = (id, what, args = []) => ({
  id,
  what,
  target: { script: 'fixed-http.mjs', args: ['--body', routesResponse(10), ...args] },
  requests: post(getRoutes()),
  check: tenRoutes,
  same: true,
  ...(args.length > 0 && { vs: ['a.getRoutes'] }),
});

/** The peers' rows and the stand-in's for `n` signatures. */
function statusesCases(n, { fresh1, fresh256, onA, viaRouter, peerAbsent, pids }) {
  const fresh = [{ path: '/', bodies: n === 1 ? fresh1 : fresh256 }];
  const validator = { url: VALIDATOR_URL, pid: pids.validatorA };
  const router = { url: ROUTER_URL, pid: pids.router, upstreamPid: pids.validatorA };
  const peers = [
    ['r.statuses', 'Rust router', 'forwarded to A', router, viaRouter],
    ['v.statuses', 'Validator A', 'known, from its ledger', validator, onA],
    ['v.fresh', 'Validator A', 'fresh (unknown)', validator],
  ];
  return [
    ...peers.map(([id, who, how, peer, known]) => ({
      id: `${id}-${n}`,
      what: `${who} getSignatureStatuses ${n}, ${how}`,
      peer,
      absent: peerAbsent,
      requests: known ? post(getSignatureStatuses(cycle(known, n))) : fresh,
      check: expectStatuses(n, { allKnown: Boolean(known) }),
    })),
    {
      id: `u.statuses-${n}`,
      what: `Upstream stand-in direct, ${n} fresh`,
      target: STANDIN,
      requests: fresh,
      check: expectStatuses(n, { allKnown: true }),
    },
  ];
}

/** `inputs`: { isPong, fresh1, fresh256, onA, viaRouter, peerAbsent, pids } from groups.mjs buildCases. */
export function baselineCases(inputs) {
  const { isPong, peerAbsent, pids } = inputs;
  const trivial = (id, what, script) => ({
    id,
    what,
    target: { script },
    requests: post(TRIVIAL_REQUEST),
    check: isPong,
    same: true,
  });
  const head = ['--headers', 'server'];
  return [
    trivial('a', 'node:http fixed bytes, trivial answer (ceiling)', 'fixed-http.mjs'),
    trivial('b', 'Express 5 + express.json() + json-rpc-2.0, by hand', 'express-jsonrpc.mjs'),
    // Beside the Rust router, in the same rounds: whether Node's own p99 is under the router's at all.
    {
      ...routesBytes('a.getRoutes', 'node:http fixed bytes, the getRoutes answer (ceiling)'),
      vs: ['r.getRoutes'],
    },
    // How much of our distance to row a.getRoutes is the head we write, and what one µs of work in a
    // handler costs the process at 50 connections (more than the µs: fewer requests share each turn
    // of the event loop and each wake-up). A full-run diagnostic, no goal.
    routesBytes('a.getRoutes.head', "(a.getRoutes) with the reference server's head", head),
    // The standard's one log line per call, on the same head: the floor of production settings.
    routesBytes(
      'a.getRoutes.head-log',
      "(a.getRoutes) with the reference server's head and one pino call line per request",
      [...head, '--log', 'calls'],
    ),
    ...[25, 50].map((us) =>
      routesBytes(
        `a.getRoutes.work-${us}`,
        `(a.getRoutes) with the server's head and ${us} µs of busy work per request`,
        [...head, '--spin-us', String(us)],
      ),
    ),
    {
      id: 'r.getRoutes',
      what: 'Rust Magic Router getRoutes',
      peer: { url: ROUTER_URL, pid: pids.router },
      absent: peerAbsent,
      requests: post(getRoutes()),
      check: expectResult(Array.isArray, 'a route list'),
      same: true,
    },
    ...statusesCases(1, inputs),
    ...statusesCases(256, inputs),
  ];
}
