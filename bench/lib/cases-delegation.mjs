// The delegation router, the methods MagicBlock's SDKs call: the reference server with its
// base chain on validator A (dlg.*) against validator A itself (v.*) and the Rust Magic
// Router (r.*), which sends a base-chain transaction to A too, and bare node:http forwarding
// each body to A with undici (p.*): Node's ceiling for a forwarding hop; pf.* adds to it what
// production settings write and read per call (the floor of any router in our settings).
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
import { expectResult } from './checks.mjs';
import { call, post } from './requests.mjs';
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

/** Where a row's calls go: through us, A direct, bare forwarding, the Rust router. */
const places = (pids) => ({
  dlg: { target: SERVER, what: 'reference server, delegation router, production settings' },
  v: { peer: { url: VALIDATOR_URL, pid: pids.validatorA }, what: 'validator A direct' },
  p: {
    target: { script: 'forward-http.mjs', args: ['--upstream', VALIDATOR_URL] },
    what: 'node:http + undici forwarding to A, nothing else (ceiling)',
  },
  pf: {
    target: { script: 'forward-http.mjs', args: ['--upstream', VALIDATOR_URL, '--as-server'] },
    what: "bare forwarding with the server's head, both bodies parsed and its call line (floor)",
  },
  r: {
    peer: { url: ROUTER_URL, pid: pids.router, upstreamPid: pids.validatorA },
    what: 'Rust Magic Router, to A',
  },
});

/** The reads passed through: an account no ER holds, the cluster's slot. */
const READS = [
  ['getAccountInfo', [ACCOUNT, { encoding: 'base64' }], isAccountAnswer],
  ['getSlot', [], isSlot],
];

// Ours is compared with each of the others, they with A direct: what each hop adds to A.
const vsOf = (at, id) =>
  at === 'v' ? undefined : ({ dlg: ['v', 'p', 'r'], pf: ['v', 'p'] }[at] ?? ['v']).map((b) => `${b}.${id}`);

/** Sends per round: 100 per measured second of the other rows (1 connection, ~2 ms each). */
const sends = (settings) => Math.max(20, Math.round(100 * settings.duration));

/** `inputs`: { peerAbsent, pids } from groups.mjs buildCases. */
export function delegationCases({ peerAbsent, pids }) {
  const transfers = transferSource(VALIDATOR_URL);
  const where = places(pids);
  const row = (at, id, fields) => ({
    id: `${at}.${id}`,
    target: where[at].target,
    peer: where[at].peer,
    absent: peerAbsent, // ours needs validator A as its base chain
    requests: post(fields.body),
    ...fields,
    what: `${fields.what}, ${where[at].what}`,
  });
  const oneConnection = (at, id, fields) =>
    row(at, id, { ...fields, connections: 1, added: at !== 'v', vs: vsOf(at, id) });
  const send = (at) => {
    const request = { path: '/', bodies: [] };
    return oneConnection(at, 'sendTransaction', {
      what: 'sendTransaction of a new transfer, 1 connection',
      requests: [request],
      refill: (settings) => transfers.refill(request.bodies, Math.ceil(sends(settings) * 1.25) + 4),
      amount: sends,
      check: isSignature,
    });
  };
  const blockhash = (at, kind, accounts) =>
    row(at, `blockhash-${kind}`, {
      what: `getBlockhashForAccounts ${kind === 'empty' ? '[]' : '[an account no ER holds]'}`,
      body: call('getBlockhashForAccounts', [accounts]),
      check: isBlockhash,
      vs: at === 'dlg' ? [`r.blockhash-${kind}`] : undefined,
    });
  const passedThrough = (at) =>
    READS.map(([method, params, check]) =>
      oneConnection(at, method, {
        what: `${method} passed through to A, 1 connection`,
        // The Rust router answers getSlot -32601: its row says so rather than fail the run.
        ...(at === 'r' && method === 'getSlot' && { absent: 'the Rust router does not serve getSlot' }),
        body: call(method, params),
        check,
      }),
    );
  // pf: what production settings cost a hop with none of our code (the full run's diagnostic).
  return ['dlg', 'v', 'p', 'r', 'pf'].flatMap((at) =>
    at === 'pf'
      ? passedThrough(at)
      : [
          send(at),
          ...passedThrough(at),
          ...(at === 'dlg' || at === 'r'
            ? [blockhash(at, 'empty', []), blockhash(at, 'account', [ACCOUNT])]
            : []),
        ],
  );
}
