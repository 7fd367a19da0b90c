// The real MagicBlock peers of the shared folder (PEERS_DIR, by default ../shared/peers from the repository root): the Rust Magic Router (18080) and
// ephemeral validator A (17799). Used when running; started when not (and then stopped
// again at the end); never stopped when someone else started them.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

const alive = (pid) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
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

/**
 * Finds (or starts) the peers and the signatures they know.
 * Returns `{ available, reason?, started, pids, signatures, log }`.
 */
export async function preparePeers({ enabled, start }) {
  const log = [];
  if (!enabled) return { available: false, reason: 'skipped (--no-peers)', log };
  const started = [];
  if (!((await validatorUp()) && (await routerUp()))) {
    if (!start) return { available: false, reason: 'peers not running (--no-start-peers)', started, log };
    if (!existsSync(join(PEERS_DIR, 'start-validator.sh')))
      return { available: false, reason: `no ${PEERS_DIR}`, started, log };
    if (!(await validatorUp())) {
      log.push('validators not running: start-validator.sh');
      started.push('validator');
      const v = await bash('start-validator.sh', 300_000);
      if (!v.ok || !(await validatorUp())) {
        return { available: false, reason: `validator could not be started: ${v.output}`, started, log };
      }
    }
    log.push('router not running: start-router.sh');
    if (!alive(pidOf('blackhole'))) started.push('blackhole');
    started.push('router');
    const r = await bash('start-router.sh', 120_000);
    if (!r.ok || !(await routerUp()))
      return { available: false, reason: `router could not be started: ${r.output}`, started, log };
  }
  let signatures = knownSignatures();
  if (!signatures.routerSent || !(await routerKnows(signatures.routerSent))) {
    log.push('no signature sent through the router yet: running capture.sh');
    const c = await bash('capture.sh', 300_000);
    signatures = knownSignatures();
    if (!c.ok || !signatures.routerSent) {
      return { available: false, reason: `capture.sh failed: ${c.output}`, started, log };
    }
  }
  return {
    available: true,
    started,
    pids: peerPids(),
    signatures,
    log,
  };
}

/** Stops only what this run started (others use the peers otherwise), by recorded PID. */
export async function releasePeers(peers) {
  const started = peers?.started ?? [];
  if (started.includes('validator')) {
    await bash('stop.sh', 60_000); // everything stop.sh knows was started by this run
    return;
  }
  for (const peer of ['router', 'blackhole']) {
    if (started.includes(peer)) {
      const pid = pidOf(peer);
      if (pid) {
        try {
          process.kill(pid, 'SIGINT');
        } catch {
          // already gone
        }
      }
    }
  }
}
