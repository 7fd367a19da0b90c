// The delegation router, the methods MagicBlock's SDKs call: the reference server with its
// base chain on validator A (dlg.*) against validator A itself (v.*) and the Rust Magic
// Router (r.*), which sends a base-chain transaction to A too, and bare node:http forwarding
// each body to A with undici (p.*): Node's ceiling for a forwarding hop.
//   *.sendTransaction: one connection, closed loop, a fixed number of sends per round, each a
//     new signed transfer on A (transfers.mjs): the rows' p50 and p99 minus A's are the
//     latency a router adds (the `added` notes and the goal).
//   *.blockhash-*: getBlockhashForAccounts of no account and of one no ER holds, at the
//     bench's load; A does not serve it, so the Rust router is the baseline.
//   *.getAccountInfo, *.getSlot: a standard read passed through to A (an account no ER
//     holds; the cluster's slot), one connection, closed loop: what a pass-through hop adds
//     to A's own latency (`added`), and its CPU per call, against bare forwarding's.
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { ROUTER_URL, VALIDATOR_URL } from './peers.mjs';
import { call, expectResult } from './requests.mjs';
import { transferSource } from './transfers.mjs';

const SERVER = {
  script: 'server.mjs',
  args: ['--settings', 'production', '--statuses', 'memory', '--delegation', VALIDATOR_URL],
};
/** A fixed account nobody delegated (32 random bytes, made once for this run). */
const ACCOUNT = bs58.encode(randomBytes(32));

const isSignature = expectResult((r) => typeof r === 'string' && r.length >= 86, 'a signature');
const isBlockhash = expectResult(
  (r) => typeof r?.blockhash === 'string' && r.lastValidBlockHeight > 0,
  'a flat { blockhash, lastValidBlockHeight > 0 }',
);

const isAccountAnswer = expectResult(
  (r) => typeof r?.context?.slot === 'number' && r.value === null,
  '{ context, value: null } (an account nobody holds)',
);
const isSlot = expectResult((r) => Number.isInteger(r) && r > 0, 'a slot');

/** Sends per round: 100 per measured second of the other rows (1 connection, ~2 ms each). */
const sends = (settings) => Math.max(20, Math.round(100 * settings.duration));

/** `inputs`: { peerAbsent, pids } from groups.mjs buildCases. */
export function delegationCases({ peerAbsent, pids }) {
  const transfers = transferSource(VALIDATOR_URL);
  const where = {
    dlg: { target: SERVER, what: 'reference server, delegation router, production settings' },
    v: { peer: { url: VALIDATOR_URL, pid: pids.validatorA }, what: 'validator A direct' },
    p: {
      target: { script: 'forward-http.mjs', args: ['--upstream', VALIDATOR_URL] },
      what: 'node:http + undici forwarding to A, nothing else (ceiling)',
    },
    r: {
      peer: { url: ROUTER_URL, pid: pids.router, upstreamPid: pids.validatorA },
      what: 'Rust Magic Router, to A',
    },
  };
  const row = (at, id, fields) => ({
    id: `${at}.${id}`,
    group: at === 'dlg' ? 'ours' : 'baseline',
    ...(where[at].target ? { target: where[at].target } : { peer: where[at].peer }),
    absent: peerAbsent, // ours needs validator A as its base chain
    ...fields,
    what: `${fields.what}, ${where[at].what}`,
  });
  const send = (at, vs) => {
    const request = { path: '/', bodies: [] };
    return row(at, 'sendTransaction', {
      what: 'sendTransaction of a new transfer, 1 connection',
      requests: [request],
      refill: (settings) => transfers.refill(request.bodies, Math.ceil(sends(settings) * 1.25) + 4),
      amount: sends,
      connections: 1,
      check: isSignature,
      added: vs !== undefined,
      vs,
    });
  };
  const blockhash = (at, kind, accounts) =>
    row(at, `blockhash-${kind}`, {
      what: `getBlockhashForAccounts ${kind === 'empty' ? '[]' : '[an account no ER holds]'}`,
      requests: [{ path: '/', body: call('getBlockhashForAccounts', [accounts]) }],
      check: isBlockhash,
      vs: at === 'dlg' ? [`r.blockhash-${kind}`] : undefined,
    });
  return [
    ...passThroughReads(row),
    send('dlg', ['v.sendTransaction', 'p.sendTransaction', 'r.sendTransaction']),
    send('v'),
    send('p', ['v.sendTransaction']),
    send('r', ['v.sendTransaction']),
    ...['dlg', 'r'].flatMap((at) => [blockhash(at, 'empty', []), blockhash(at, 'account', [ACCOUNT])]),
  ];
}

/** getAccountInfo and getSlot passed through to A, at each of `row`'s places. */
function passThroughReads(row) {
  const read = (at, method, params, check) =>
    row(at, method, {
      what: `${method} passed through to A, 1 connection`,
      requests: [{ path: '/', body: call(method, params) }],
      connections: 1,
      check,
      added: at !== 'v',
      vs:
        at === 'v'
          ? undefined
          : at === 'dlg'
            ? [`v.${method}`, `p.${method}`, `r.${method}`]
            : [`v.${method}`],
    });
  const reads = [
    ['getAccountInfo', [ACCOUNT, { encoding: 'base64' }], isAccountAnswer],
    ['getSlot', [], isSlot],
  ];
  return reads.flatMap(([method, params, check]) =>
    ['dlg', 'v', 'p', 'r'].map((at) => read(at, method, params, check)),
  );
}
