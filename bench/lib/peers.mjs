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

/** The `result` of `method` at `url` (parsed), or undefined when it does not answer. */
const resultOf = async (url, method, params) => {
  try {
    return JSON.parse((await rpcCall(url, { jsonrpc: '2.0', id: 1, method, params })).text).result;
  } catch {
    return undefined;
  }
};

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

const readWork = (file, parse) => {
  try {
    return parse(readFileSync(join(WORK, file), 'utf8'));
  } catch {
    return undefined;
  }
};
/** The peers' PIDs: their CPU time is theirs, not "other processes". */
export const peerPids = () =>
  Object.fromEntries(
    Object.entries({
      router: 'router',
      validatorA: 'validator-a',
      validatorB: 'validator-b',
      blackhole: 'blackhole',
    }).map(([key, dir]) => [key, readWork(`${dir}/pid`, (t) => Number(t.trim()) || undefined)]),
  );

/** Signatures the peers know: one sent through the router, and finalized ones on A. */
function knownSignatures() {
  const [router, a, kit] = ['tx-router.json', 'tx-a.json', 'tx-a-kit.json'].map((f) =>
    readWork(f, JSON.parse),
  );
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

/** Finds the peers and the signatures they know: `{ available, reason?, pids, signatures, log }`. */
export async function preparePeers({ enabled }) {
  const log = [];
  if (!enabled) return { available: false, reason: 'skipped (--no-peers)', log };
  const up =
    (await resultOf(VALIDATOR_URL, 'getHealth')) === 'ok' &&
    Array.isArray(await resultOf(ROUTER_URL, 'getRoutes'));
  if (!up)
    return { available: false, reason: `peers not running (start them with ${PEERS_DIR}/start-*.sh)`, log };
  let signatures = knownSignatures();
  const routerKnows = async (sig) =>
    (await resultOf(ROUTER_URL, 'getSignatureStatuses', [[sig]]))?.value?.[0] != null;
  if (!signatures.routerSent || !(await routerKnows(signatures.routerSent))) {
    log.push('no signature sent through the router yet: running capture.sh');
    const c = await bash('capture.sh', 300_000);
    signatures = knownSignatures();
    if (!c.ok || !signatures.routerSent)
      return { available: false, reason: `capture.sh failed: ${c.output}`, log };
  }
  return { available: true, pids: peerPids(), signatures, log };
}
