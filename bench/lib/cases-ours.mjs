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
  expectResult,
  expectStatuses,
  getRoutes,
  getSignatureStatuses,
} from './requests.mjs';

/** Headers the reference server's listener sets on every answer: checked before a prod/lean row runs. */
const SECURITY_HEADERS = ['x-content-type-options', 'content-security-policy', 'x-request-id'];

/** The reference server with `settings` (production | lean) and the `statuses` chain. */
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

const tenRoutes = expectResult((r) => Array.isArray(r) && r.length === 10, '10 routes');

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

function serverCases(settings, { sigs, primed, fresh1, fresh256, peerAbsent, pids }) {
  const s = settings === 'production' ? 'prod' : 'lean';
  const label = `${settings} settings`;
  const memory = server(settings, 'memory');
  const cases = [
    {
      id: `${s}.getRoutes`,
      group: 'ours',
      what: `getRoutes, 10 nodes, ${label}`,
      headers: SECURITY_HEADERS,
      target: memory,
      requests: [{ path: '/', body: getRoutes() }],
      check: tenRoutes,
      same: true,
      vs: ['r.getRoutes', 'a.getRoutes'],
    },
  ];
  for (const n of [1, 256]) {
    const primedBody = [{ path: '/', body: getSignatureStatuses(sigs.slice(0, n)) }];
    const freshBodies = [{ path: '/', bodies: n === 1 ? fresh1 : fresh256 }];
    const known = {
      check: expectStatuses(n, { allKnown: true }),
      prime: primed,
      same: true,
      requests: primedBody,
    };
    const row = (kind, how, fields) => ({
      id: `${s}.statuses-${kind}-${n}`,
      group: 'ours',
      what: `getSignatureStatuses ${n}, ${how}, ${label}`,
      headers: SECURITY_HEADERS,
      ...fields,
    });
    const vsKnown = [`v.statuses-${n}`, `r.statuses-${n}`];
    cases.push(
      row('memory', 'memory', { ...known, target: memory, layer: 'memory', vs: vsKnown }),
      row('sqlite', 'SQLite, no memory cache', {
        ...known,
        target: server(settings, 'sqlite'),
        layer: 'store',
        vs: vsKnown,
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
    );
  }
  cases.push({
    id: `${s}.batch-10`,
    headers: SECURITY_HEADERS,
    group: 'ours',
    what: `batch of 10 mixed calls (memory), ${label}`,
    target: memory,
    prime: primed,
    layer: 'memory',
    requests: [{ path: '/', body: mixedBatch(sigs) }],
    check: expectBatch(10),
    same: true,
  });
  return cases;
}

/** The plugins in a host Express app, mounted at /rpc (`app.use('/rpc', expressRpc(rpc))`). */
function embeddedCases({ sigs, primed }) {
  const target = { script: 'embedded.mjs', args: ['--statuses', 'memory'], upstream: STANDIN };
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
    ...embeddedCases(inputs),
  ];
}
