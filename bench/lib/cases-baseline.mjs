// The baselines: what users would run instead, measured on the same machine in the same
// run. Bare node:http (Node's ceiling), Express + json-rpc-2.0 written by hand, the real
// Rust Magic Router and validator A from ../shared/peers, and the loopback upstream stand-in.
import { routesResponse } from '../targets/lib/fixtures.mjs';
import { TRIVIAL_REQUEST } from '../targets/lib/trivial.mjs';
import { ROUTER_URL, VALIDATOR_URL } from './peers.mjs';
import { cycle, expectResult, expectStatuses, getRoutes, getSignatureStatuses } from './requests.mjs';

export const STANDIN = { script: 'upstream-standin.mjs' };

/** `inputs`: { isPong, fresh1, fresh256, onA, viaRouter, peerAbsent, pids } from cases.mjs. */
export function baselineCases({ isPong, fresh1, fresh256, onA, viaRouter, peerAbsent, pids }) {
  const trivial = [{ path: '/', body: TRIVIAL_REQUEST }];
  const router = { url: ROUTER_URL, pid: pids.router, upstreamPid: pids.validatorA };
  const validator = { url: VALIDATOR_URL, pid: pids.validatorA };
  const peer = (id, what, p, requests, check, same = false) => ({
    id,
    group: 'baseline',
    what,
    peer: p,
    absent: peerAbsent,
    requests,
    check,
    same,
  });
  const fresh = (n) => (n === 1 ? fresh1 : fresh256);
  return [
    {
      id: 'a',
      group: 'baseline',
      what: 'node:http fixed bytes, trivial answer (ceiling)',
      target: { script: 'fixed-http.mjs' },
      requests: trivial,
      check: isPong,
      same: true,
    },
    {
      id: 'a.getRoutes',
      group: 'baseline',
      what: 'node:http fixed bytes, the getRoutes answer (ceiling)',
      target: { script: 'fixed-http.mjs', args: ['--body', routesResponse(10)] },
      requests: [{ path: '/', body: getRoutes() }],
      check: expectResult((r) => Array.isArray(r) && r.length === 10, '10 routes'),
      same: true,
    },
    {
      id: 'b',
      group: 'baseline',
      what: 'Express 5 + express.json() + json-rpc-2.0, by hand',
      target: { script: 'express-jsonrpc.mjs' },
      requests: trivial,
      check: isPong,
      same: true,
    },
    peer(
      'r.getRoutes',
      'Rust Magic Router getRoutes',
      { url: ROUTER_URL, pid: pids.router },
      [{ path: '/', body: getRoutes() }],
      expectResult(Array.isArray, 'a route list'),
      true,
    ),
    ...[1, 256].flatMap((n) => [
      peer(
        `r.statuses-${n}`,
        `Rust router getSignatureStatuses ${n}, forwarded to A`,
        router,
        [{ path: '/', body: getSignatureStatuses(n === 1 ? viaRouter.slice(0, 1) : cycle(viaRouter, n)) }],
        expectStatuses(n, { allKnown: true }),
      ),
      peer(
        `v.statuses-${n}`,
        `Validator A getSignatureStatuses ${n} known, from its ledger`,
        validator,
        [{ path: '/', body: getSignatureStatuses(n === 1 ? onA.slice(0, 1) : cycle(onA, n)) }],
        expectStatuses(n, { allKnown: true }),
      ),
      peer(
        `v.fresh-${n}`,
        `Validator A getSignatureStatuses ${n} fresh (unknown)`,
        validator,
        [{ path: '/', bodies: fresh(n) }],
        expectStatuses(n, { allKnown: false }),
      ),
      {
        id: `u.statuses-${n}`,
        group: 'baseline',
        what: `Upstream stand-in direct, ${n} fresh`,
        target: STANDIN,
        requests: [{ path: '/', bodies: fresh(n) }],
        check: expectStatuses(n, { allKnown: true }),
      },
    ]),
  ];
}
