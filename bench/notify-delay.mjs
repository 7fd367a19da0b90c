// `node bench/notify-delay.mjs [N] [--commitment confirmed] [--poll]`: how much later than validator
// A's own websocket our signatureSubscribe notifies, for the same transaction (issue 28).
// The reference server runs as the CLI in its own process (`npm run build` first), with
// validator A as its one upstream; N transfers are sent on A, each with one raw websocket
// subscribed on ours and one on A's before it is sent. Prints median, p90 and p99 of
// ours - theirs (both arrival times taken in this process). `--poll` configures A with
// `wsUrl: false`, the polling fallback, for comparison. Peers: VALIDATOR_A_URL / _WS.
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';
const VALIDATOR_WS = process.env.VALIDATOR_A_WS ?? 'ws://127.0.0.1:17800';
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? undefined : (args[i + 1] ?? 'true');
};
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
const COMMITMENT = flag('commitment') ?? 'confirmed';
const POLL = args.includes('--poll');
const CLI = fileURLToPath(new URL('../packages/server/dist/cli.js', import.meta.url));

const free = (port) =>
  new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A port P with P + 1 free too: the server's websocket listens on P + 1. */
async function portPair() {
  for (;;) {
    const p = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await free(p)) && (await free(p + 1))) return p;
  }
}

async function startRouter() {
  const port = await portPair();
  const dir = mkdtempSync(join(tmpdir(), 'notify-delay-'));
  const config = join(dir, 'config.json');
  const upstream = POLL ? { url: VALIDATOR, wsUrl: false } : { url: VALIDATOR };
  writeFileSync(
    config,
    JSON.stringify({
      host: '127.0.0.1',
      port,
      logLevel: 'warn',
      statuses: { store: false, upstreams: [upstream] },
    }),
  );
  const child = spawn(process.execPath, [CLI, '--config', config], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok)
        return { ws: `ws://127.0.0.1:${port + 1}`, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  stop();
  throw new Error('the router did not become ready');
}

/** Opens a socket, subscribes `sig`; resolves once acknowledged, with the notification's arrival to come. */
function subscribed(url, sig) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    let notified;
    const arrival = new Promise((r) => (notified = r));
    socket.on('error', reject);
    socket.on('open', () =>
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'signatureSubscribe',
          params: [sig, { commitment: COMMITMENT }],
        }),
      ),
    );
    socket.on('message', (data) => {
      const at = performance.now();
      const m = JSON.parse(String(data));
      if (m.id === 1) resolve({ arrival });
      else if (m.method === 'signatureNotification') {
        notified({ at, result: m.params.result });
        socket.close();
      }
    });
  });
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const conn = new Connection(VALIDATOR, 'confirmed');
const payer = Keypair.generate();
await conn.confirmTransaction(
  {
    signature: await conn.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL),
    ...(await conn.getLatestBlockhash()),
  },
  'confirmed',
);
const router = await startRouter();
const extra = [];
const theirsAfterSend = [];
try {
  for (let i = 0; i < N; i++) {
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1000 + i,
      }),
    );
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    const sig = bs58.encode(tx.signature);
    const [ours, theirs] = await Promise.all([subscribed(router.ws, sig), subscribed(VALIDATOR_WS, sig)]);
    // Our subscription is relayed upstream asynchronously: give it its acknowledgement first,
    // as a client subscribing before it sends would (a few ms on loopback).
    await new Promise((r) => setTimeout(r, 50));
    const sent = performance.now();
    await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const [o, t] = await Promise.all([ours.arrival, theirs.arrival]);
    if (JSON.stringify(o.result) !== JSON.stringify(t.result))
      throw new Error(`notifications differ: ${JSON.stringify(o.result)} vs ${JSON.stringify(t.result)}`);
    extra.push(o.at - t.at);
    theirsAfterSend.push(t.at - sent);
  }
} finally {
  router.stop();
}
const sorted = [...extra].sort((a, b) => a - b);
const own = [...theirsAfterSend].sort((a, b) => a - b);
const ms = (v) => `${v.toFixed(1)} ms`;
console.log(
  `${N} transfers on validator A, commitment ${COMMITMENT}, ${POLL ? 'polling (wsUrl: false)' : 'relayed'}:\n` +
    `  A's own notification after the send: median ${ms(percentile(own, 50))}\n` +
    `  ours after A's own: median ${ms(percentile(sorted, 50))}, p90 ${ms(percentile(sorted, 90))}, ` +
    `p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1))}`,
);
