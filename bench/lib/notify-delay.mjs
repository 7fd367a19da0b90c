// `--notify-delay [N] [--commitment confirmed] [--poll]`: how much later than validator A's
// own websocket our signatureSubscribe notifies, for the same transaction. The reference
// server (lean settings: logs silent) has validator A as its one upstream; N transfers are
// sent on A, each with one socket subscribed on ours and one on A's before it is sent.
// Prints median, p90 and p99 of ours - theirs (both arrival times taken in this process).
// `--poll` configures A with `wsUrl: false`, the polling fallback, for comparison.
import { deriveWsUrl } from '@rollup-router/solana';
import bs58 from 'bs58';
import { rpcCall, VALIDATOR_URL } from './peers.mjs';
import { startTarget } from './processes.mjs';
import { openSubscriber } from './subscribers.mjs';
import { transferSource } from './transfers.mjs';

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (v) => `${v.toFixed(1)} ms`;

/** Subscribes `sig` on a socket to `url`; resolves once acknowledged, with the notification's arrival to come. */
async function subscribed(url, sig, commitment) {
  const socket = await openSubscriber(url);
  const arrival = new Promise((resolve) => {
    socket.onNotification = (_id, result) => resolve({ at: performance.now(), result });
  });
  await socket.subscribe([sig], { commitment });
  return { arrival: arrival.finally(() => socket.close()) };
}

export async function notifyDelay(args) {
  const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
  const commitment = args.includes('--commitment') ? args[args.indexOf('--commitment') + 1] : 'confirmed';
  const poll = args.includes('--poll');
  const router = await startTarget('server.mjs', [
    ...['--settings', 'lean', '--statuses', 'memory', '--upstream', VALIDATOR_URL],
    ...(poll ? ['--upstream-ws', 'off'] : []),
  ]);
  if (router.absent) throw new Error(`reference server absent: ${router.absent}`);
  const transfers = transferSource(VALIDATOR_URL);
  const extra = [];
  const theirsAfterSend = [];
  try {
    for (let i = 0; i < n; i++) {
      const bodies = [];
      await transfers.refill(bodies, 1);
      const wire = Buffer.from(JSON.parse(bodies[0]).params[0], 'base64');
      const sig = bs58.encode(wire.subarray(1, 65));
      const [ours, theirs] = await Promise.all([
        subscribed(router.url, sig, commitment),
        subscribed(deriveWsUrl(VALIDATOR_URL), sig, commitment),
      ]);
      // Our subscription is relayed upstream asynchronously: give it its acknowledgement first,
      // as a client subscribing before it sends would (a few ms on loopback).
      await new Promise((r) => setTimeout(r, 50));
      const sent = performance.now();
      const answer = await rpcCall(VALIDATOR_URL, bodies[0], 10_000);
      if (!answer.text.includes(`"result":"${sig}"`)) throw new Error(`sendTransaction: ${answer.text}`);
      const [o, t] = await Promise.all([ours.arrival, theirs.arrival]);
      if (JSON.stringify(o.result) !== JSON.stringify(t.result))
        throw new Error(`notifications differ: ${JSON.stringify(o.result)} vs ${JSON.stringify(t.result)}`);
      extra.push(o.at - t.at);
      theirsAfterSend.push(t.at - sent);
    }
  } finally {
    await router.stop();
  }
  const sorted = extra.sort((a, b) => a - b);
  const own = theirsAfterSend.sort((a, b) => a - b);
  console.log(
    `${n} transfers on validator A, commitment ${commitment}, ${poll ? 'polling (wsUrl: false)' : 'relayed'}:\n` +
      `  A's own notification after the send: median ${ms(percentile(own, 50))}\n` +
      `  ours after A's own: median ${ms(percentile(sorted, 50))}, p90 ${ms(percentile(sorted, 90))}, ` +
      `p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1))}`,
  );
  return 0;
}
