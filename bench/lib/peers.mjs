// The real MagicBlock peers of the shared folder (PEERS_DIR, by default ../shared/peers from
// the repository root): the Rust Magic Router (18080) and ephemeral validator A (17799).
// Measured when they are running (their own scripts start them); their rows say absent when not.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PEERS_DIR = process.env.PEERS_DIR ?? fileURLToPath(new URL('../../../shared/peers', import.meta.url));
const WORK = process.env.PEERS_WORK ?? '/tmp/peers-work';
export const ROUTER_URL = 'http://127.0.0.1:18080';
export const VALIDATOR_URL = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';

export async function rpcCall(url, body, timeoutMs = 3000) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const answers = async (url, method, check) => {
  try {
    const { text } = await rpcCall(url, { jsonrpc: '2.0', id: 1, method });
    return check(JSON.parse(text).result);
  } catch {
    return false;
  }
};
const routerUp = () => answers(ROUTER_URL, 'getRoutes', Array.isArray);
const validatorUp = () => answers(VALIDATOR_URL, 'getHealth', (r) => r === 'ok');

const bash = (script, timeoutMs) =>
  new Promise((resolve) => {
    execFile(
      'bash',
      [join(PEERS_DIR, script)],
      { cwd: PEERS_DIR, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (err, stdout, stderr) =>
        resolve({ ok: !err, output: `${stdout}${stderr}`.trim().split('\n').slice(-3).join(' | ') }),
    );
  });

const pidOf = (peer) => {
  try {
    return Number(readFileSync(join(WORK, peer, 'pid'), 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
};
/** The peers' PIDs: their CPU time is theirs, not "other processes". */
export const peerPids = () => ({
  router: pidOf('router'),
  validatorA: pidOf('validator-a'),
  validatorB: pidOf('validator-b'),
  blackhole: pidOf('blackhole'),
});

const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(join(WORK, file), 'utf8'));
  } catch {
    return undefined;
  }
};

/** Signatures the peers know: one sent through the router, and finalized ones on A. */
function knownSignatures() {
  const router = readJson('tx-router.json');
  const a = readJson('tx-a.json');
  const kit = readJson('tx-a-kit.json');
  const onA = [
    a?.transferSig,
    a?.airdropSig,
    kit?.transferSig,
    kit?.airdropSig,
    router?.airdropSig,
    router?.routerSentSig,
  ];
  return { routerSent: router?.routerSentSig, onValidator: onA.filter(Boolean) };
}

const routerKnows = async (sig) => {
  try {
    const { text } = await rpcCall(ROUTER_URL, {
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [[sig]],
    });
    return JSON.parse(text).result?.value?.[0] != null;
  } catch {
    return false;
  }
};

/** Finds the peers and the signatures they know: `{ available, reason?, pids, signatures, log }`. */
export async function preparePeers({ enabled }) {
  const log = [];
  if (!enabled) return { available: false, reason: 'skipped (--no-peers)', log };
  if (!((await validatorUp()) && (await routerUp())))
    return { available: false, reason: `peers not running (start them with ${PEERS_DIR}/start-*.sh)`, log };
  let signatures = knownSignatures();
  if (!signatures.routerSent || !(await routerKnows(signatures.routerSent))) {
    log.push('no signature sent through the router yet: running capture.sh');
    const c = await bash('capture.sh', 300_000);
    signatures = knownSignatures();
    if (!c.ok || !signatures.routerSent)
      return { available: false, reason: `capture.sh failed: ${c.output}`, log };
  }
  return { available: true, pids: peerPids(), signatures, log };
}
