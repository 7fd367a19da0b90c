// Ours: the core alone (trivial method), the reference server (`rollup-router`'s own
// listener) with each of its settings, over HTTP and WebSocket, and the plugins embedded in a
// host Express app. `layer` is where a row's signatures must come from; the evidence of each
// round proves it.
import { TRIVIAL_REQUEST } from '../targets/lib/trivial.mjs';
import { STANDIN } from './cases-baseline.mjs';
import { VALIDATOR_URL } from './peers.mjs';
import { expectBatch, expectStatuses, tenRoutes } from './checks.mjs';
import { call, getRoutes, getSignatureStatuses, post } from './requests.mjs';

/** Headers the reference server's listener sets on every answer: checked before a row of it runs. */
export const SECURITY_HEADERS = ['x-content-type-options', 'content-security-policy', 'x-request-id'];

/** The reference server with `settings` (production | lean | sampled | traced) and the `statuses` chain. */
const server = (settings, statuses, upstream = STANDIN) => ({
  script: 'server.mjs',
  args: ['--settings', settings, '--statuses', statuses],
  upstream,
});

/** Row id prefixes of the reference server's settings; sampled and traced are options, not defaults. */
const PREFIX = { production: 'prod', lean: 'lean', sampled: 'sampled', traced: 'traced' };
const OPTION = { sampled: 'call log sampled 1% (option)', traced: 'traces on (option)' };

/** A batch of 10 mixed calls, all answerable from a primed memory cache. */
function mixedBatch(sigs) {
  const [routes, statuses] = [['getRoutes'], (...params) => ['getSignatureStatuses', params]];
  const calls = [routes, statuses([sigs[0]]), routes, statuses(sigs.slice(1, 5))];
  calls.push(statuses([sigs[5]], { searchTransactionHistory: false }), routes, statuses(sigs.slice(6, 14)));
  calls.push(routes, statuses([sigs[14]]), routes);
  return `[${calls.map(([m, p], i) => call(m, p, i + 1)).join(',')}]`;
}

/** The reference server's rows with `settings`. */
function serverCases(settings, { sigs, primed, fresh1, fresh256, peerAbsent, pids }) {
  const s = PREFIX[settings];
  const named = OPTION[settings] ? `production settings, ${OPTION[settings]}` : `${settings} settings`;
  const row = (id, what, fields) => ({
    id: `${s}.${id}`,
    what: `${what}, ${named}`,
    headers: SECURITY_HEADERS,
    target: server(settings, 'memory'),
    same: true,
    ...fields,
  });
  const statuses = (n) => {
    const known = (kind, statusesChain, layer) =>
      row(
        `statuses-${kind}-${n}`,
        `getSignatureStatuses ${n}, ${kind === 'memory' ? 'memory' : 'SQLite, no memory cache'}`,
        {
          target: server(settings, statusesChain),
          layer,
          prime: primed,
          requests: post(getSignatureStatuses(sigs.slice(0, n))),
          check: expectStatuses(n, { allKnown: true }),
          vs: [`v.statuses-${n}`, `r.statuses-${n}`],
        },
      );
    const fresh = (kind, how, upstream, vs) =>
      row(`statuses-${kind}-${n}`, `getSignatureStatuses ${n}, fresh, via ${how}`, {
        target: server(settings, kind === 'upstream' ? 'upstream' : 'memory', upstream),
        layer: 'upstream',
        same: false,
        requests: [{ path: '/', bodies: n === 1 ? fresh1 : fresh256 }],
        check: expectStatuses(n, { allKnown: kind === 'upstream' }),
        vs: [vs],
        ...(kind === 'validator' && { absent: peerAbsent }),
      });
    return [
      known('memory', 'memory', 'memory'),
      known('sqlite', 'sqlite', 'store'),
      fresh('upstream', 'the stand-in', STANDIN, `u.statuses-${n}`),
      // The whole default chain (memory, store, upstream) in front of the real validator.
      fresh('validator', 'validator A', { url: VALIDATOR_URL, pid: pids.validatorA }, `v.fresh-${n}`),
    ];
  };
  return [
    row('getRoutes', 'getRoutes, 10 nodes', {
      requests: post(getRoutes()),
      check: tenRoutes,
      vs: ['r.getRoutes', 'a.getRoutes'],
    }),
    ...statuses(1),
    ...statuses(256),
    row('batch-10', 'batch of 10 mixed calls (memory)', {
      prime: primed,
      layer: 'memory',
      requests: post(mixedBatch(sigs)),
      check: expectBatch(10),
    }),
  ];
}

/**
 * An option's rows (sampled, traced): prod.getRoutes and prod.statuses-memory-1 with it on,
 * compared with the production row too, which says what the option saves or costs.
 */
const optionCases = (settings, inputs) =>
  serverCases(settings, inputs)
    .filter((c) => /\.(getRoutes|statuses-memory-1)$/.test(c.id))
    .map((c) => ({ ...c, vs: [...c.vs, c.id.replace(/^\w+\./, 'prod.')] }));

/**
 * Rows of the same calls as two production rows, on another transport or host: over WebSocket
 * to the same server (upgrade at its mount root), and the plugins in a host Express app at /rpc.
 */
function sameCallsCases({ sigs, primed }) {
  const calls = [
    ['getRoutes', 'getRoutes', { requests: post(getRoutes()), check: tenRoutes }],
    [
      'statuses-memory-1',
      'getSignatureStatuses 1, memory',
      {
        prime: primed,
        layer: 'memory',
        requests: post(getSignatureStatuses(sigs.slice(0, 1))),
        check: expectStatuses(1, { allKnown: true }),
      },
    ],
  ];
  return calls.flatMap(([id, what, fields]) => [
    {
      id: `ws.${id}`,
      what: `${what} over WebSocket, production settings`,
      transport: 'websocket',
      headers: SECURITY_HEADERS, // probed over HTTP: the production listener serves the sockets
      target: server('production', 'memory'),
      ...fields,
      same: true,
      vs: [`prod.${id}`],
    },
    {
      id: `express.${id}`,
      what: `${what}, plugins in a host Express app at /rpc`,
      target: { script: 'embedded.mjs', upstream: STANDIN },
      ...fields,
      requests: fields.requests.map((r) => ({ ...r, path: '/rpc' })),
      same: true,
      vs: [`prod.${id}`],
    },
  ]);
}

export function ourCases(inputs) {
  const core = (id, what, args, vs) => ({
    id,
    what,
    target: { script: 'core-trivial.mjs', args },
    requests: post(TRIVIAL_REQUEST),
    check: inputs.isPong,
    same: true,
    vs,
  });
  return [
    core('c', 'Express adapter: core + expressRpc, trivial method', ['--adapter', 'express'], ['b']),
    core('d', 'core + createNodeListener, trivial method, call log on', ['--adapter', 'node'], ['a']),
    core('d.nolog', '(d) with the call log off', ['--adapter', 'node', '--logging', 'off'], ['a', 'd']),
    ...serverCases('production', inputs),
    ...serverCases('lean', inputs),
    ...optionCases('sampled', inputs),
    ...optionCases('traced', inputs),
    ...sameCallsCases(inputs),
  ];
}
