// Ours: the core alone (trivial method), the reference server (`rollup-router`'s own
// listener) with production settings and lean settings, and the plugins embedded in a
// host Express app. `layer` is where a row's signatures must come from; the evidence
// of each round proves it.
import { TRIVIAL_REQUEST } from '../targets/lib/trivial.mjs';
import { STANDIN } from './cases-baseline.mjs';
import { VALIDATOR_URL } from './peers.mjs';
import {
  call,
  expectBatch,
  expectStatuses,
  getRoutes,
  getSignatureStatuses,
  tenRoutes,
} from './requests.mjs';

/** Headers the reference server's listener sets on every answer: checked before a prod/lean row runs. */
export const SECURITY_HEADERS = ['x-content-type-options', 'content-security-policy', 'x-request-id'];

/** The reference server with `settings` (production | lean | sampled | traced) and the `statuses` chain. */
const server = (settings, statuses, upstream = STANDIN) => ({
  script: 'server.mjs',
  args: ['--settings', settings, '--statuses', statuses],
  upstream,
});

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

function coreCases(isPong) {
  const trivial = [{ path: '/', body: TRIVIAL_REQUEST }];
  const core = (id, what, args, vs) => ({
    id,
    group: 'ours',
    what,
    target: { script: 'core-trivial.mjs', args },
    requests: trivial,
    check: isPong,
    same: true,
    vs,
  });
  return [
    core('c', 'Express adapter: core + expressRpc, trivial method', ['--adapter', 'express'], ['b']),
    core('d', 'core + createNodeListener, trivial method, call log on', ['--adapter', 'node'], ['a']),
    core('d.nolog', '(d) with the call log off', ['--adapter', 'node', '--logging', 'off'], ['a', 'd']),
  ];
}

/** The getSignatureStatuses rows of `n` signatures, one per answer layer. */
function statusesCases(settings, n, { sigs, primed, fresh1, fresh256, peerAbsent, pids }) {
  const s = PREFIX[settings];
  const freshBodies = [{ path: '/', bodies: n === 1 ? fresh1 : fresh256 }];
  const known = {
    check: expectStatuses(n, { allKnown: true }),
    prime: primed,
    same: true,
    requests: [{ path: '/', body: getSignatureStatuses(sigs.slice(0, n)) }],
    vs: [`v.statuses-${n}`, `r.statuses-${n}`],
  };
  const row = (kind, how, fields) => ({
    id: `${s}.statuses-${kind}-${n}`,
    group: 'ours',
    what: `getSignatureStatuses ${n}, ${how}, ${settings} settings`,
    headers: SECURITY_HEADERS,
    ...fields,
  });
  return [
    row('memory', 'memory', { ...known, target: server(settings, 'memory'), layer: 'memory' }),
    row('sqlite', 'SQLite, no memory cache', {
      ...known,
      target: server(settings, 'sqlite'),
      layer: 'store',
    }),
    row('upstream', 'fresh, via the stand-in', {
      target: server(settings, 'upstream'),
      layer: 'upstream',
      requests: freshBodies,
      check: expectStatuses(n, { allKnown: true }),
      vs: [`u.statuses-${n}`],
    }),
    // The whole default chain (memory, store, upstream) in front of the real validator.
    row('validator', 'fresh, via validator A', {
      target: server(settings, 'memory', { url: VALIDATOR_URL, pid: pids.validatorA }),
      layer: 'upstream',
      absent: peerAbsent,
      requests: freshBodies,
      check: expectStatuses(n, { allKnown: false }),
      vs: [`v.fresh-${n}`],
    }),
  ];
}

/** Row id prefixes of the reference server's settings. */
const PREFIX = { production: 'prod', lean: 'lean', sampled: 'sampled', traced: 'traced' };

/** The reference server's rows with `settings` (production | lean | sampled | traced). */
function serverCases(settings, inputs) {
  const s = PREFIX[settings];
  const memory = server(settings, 'memory');
  const base = { group: 'ours', headers: SECURITY_HEADERS, target: memory, same: true };
  return [
    {
      ...base,
      id: `${s}.getRoutes`,
      what: `getRoutes, 10 nodes, ${settings} settings`,
      requests: [{ path: '/', body: getRoutes() }],
      check: tenRoutes,
      vs: ['r.getRoutes', 'a.getRoutes'],
    },
    ...statusesCases(settings, 1, inputs),
    ...statusesCases(settings, 256, inputs),
    {
      ...base,
      id: `${s}.batch-10`,
      what: `batch of 10 mixed calls (memory), ${settings} settings`,
      prime: inputs.primed,
      layer: 'memory',
      requests: [{ path: '/', body: mixedBatch(inputs.sigs) }],
      check: expectBatch(10),
    },
  ];
}

/**
 * prod.getRoutes and prod.statuses-memory-1 with the call log sampled (`callLog.sampleRate`
 * 0.01), an option and not the default: compared with the goals' baselines and with the
 * production row itself, which says what the other 99 lines cost.
 */
function sampledCases(inputs) {
  const rows = ['sampled.getRoutes', 'sampled.statuses-memory-1'];
  return serverCases('sampled', inputs)
    .filter((c) => rows.includes(c.id))
    .map((c) => ({
      ...c,
      what: c.what.replace('sampled settings', 'production settings, call log sampled 1% (option)'),
      vs: [...c.vs, c.id.replace(/^sampled\./, 'prod.')],
    }));
}

/**
 * prod.getRoutes and prod.statuses-memory-1 with OpenTelemetry traces on (every call a span,
 * exported to a sink): compared with the production row, traces off (the default), which
 * says what tracing costs, and with the baselines, which say what off costs.
 */
function tracedCases(inputs) {
  const rows = ['traced.getRoutes', 'traced.statuses-memory-1'];
  return serverCases('traced', inputs)
    .filter((c) => rows.includes(c.id))
    .map((c) => ({
      ...c,
      what: c.what.replace('traced settings', 'production settings, traces on (option)'),
      vs: [...c.vs, c.id.replace(/^traced\./, 'prod.')],
    }));
}

/**
 * The same calls as prod.getRoutes and prod.statuses-memory-1, to the same server, over
 * WebSocket (upgrade on its HTTP port at the mount root): what a socket saves per call.
 */
function socketCases({ sigs, primed }) {
  const base = {
    group: 'ours',
    transport: 'websocket',
    headers: SECURITY_HEADERS, // probed over HTTP: the production listener serves the sockets
    target: server('production', 'memory'),
    same: true,
  };
  return [
    {
      ...base,
      id: 'ws.getRoutes',
      what: 'getRoutes over WebSocket, production settings',
      requests: [{ path: '/', body: getRoutes() }],
      check: tenRoutes,
      vs: ['prod.getRoutes'],
    },
    {
      ...base,
      id: 'ws.statuses-memory-1',
      what: 'getSignatureStatuses 1, memory, over WebSocket, production settings',
      requests: [{ path: '/', body: getSignatureStatuses(sigs.slice(0, 1)) }],
      prime: primed,
      layer: 'memory',
      check: expectStatuses(1, { allKnown: true }),
      vs: ['prod.statuses-memory-1'],
    },
  ];
}

/** The plugins in a host Express app, mounted at /rpc (`app.use('/rpc', expressRpc(rpc))`). */
function embeddedCases({ sigs, primed }) {
  const target = { script: 'embedded.mjs', upstream: STANDIN };
  return [
    {
      id: 'express.getRoutes',
      group: 'ours',
      what: 'getRoutes, plugins in a host Express app at /rpc',
      target,
      requests: [{ path: '/rpc', body: getRoutes() }],
      check: tenRoutes,
      same: true,
      vs: ['prod.getRoutes'],
    },
    {
      id: 'express.statuses-memory-1',
      group: 'ours',
      what: 'getSignatureStatuses 1, memory, plugins in a host Express app',
      target,
      requests: [{ path: '/rpc', body: getSignatureStatuses(sigs.slice(0, 1)) }],
      prime: primed,
      layer: 'memory',
      check: expectStatuses(1, { allKnown: true }),
      same: true,
      vs: ['prod.statuses-memory-1'],
    },
  ];
}

export function ourCases(inputs) {
  return [
    ...coreCases(inputs.isPong),
    ...serverCases('production', inputs),
    ...serverCases('lean', inputs),
    ...sampledCases(inputs),
    ...tracedCases(inputs),
    ...socketCases(inputs),
    ...embeddedCases(inputs),
  ];
}
