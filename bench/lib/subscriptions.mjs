// The subscription figures, from a reference server with production settings run with
// --expose-gc (SIGUSR2 collects and reports, see targets/lib/serve.mjs):
//   subscriptions: in front of the upstream stand-in, told that none of the signatures is
//     known yet: the heap per idle signatureSubscribe, and the upstream requests per poll
//     round at 10,000 pending (ceil(10000/256) = 40 if they are batched);
//   relay: the one upstream is validator A, its websocket reached through a TCP proxy in this
//     process that counts the sockets opened through it and A's acknowledgements: memory per
//     relayed subscription and how many upstream sockets 10,000 of them take.
import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { deriveWsUrl } from '@rollup-router/solana';
import { VALIDATOR_URL } from './peers.mjs';
import { startTarget } from './processes.mjs';
import { randomSignatureTexts } from './requests.mjs';
import { residentBytes } from './proc.mjs';
import { openSubscriber, tellStandIn, waitUntil } from './subscribers.mjs';

// 1000 is the default maxSubscriptionsPerConnection: 10 sockets reach 10,000.
const SOCKETS = 10;
const PER_SOCKET = 1000;
const MAX_BATCH = 256;
const POLL_ROUNDS = 'rollup_router_signature_poll_rounds_total';

/** A poll round under way holds its own garbage-to-be: the lowest of a few readings leaves it out. */
async function settledMemory(target, readings = 3) {
  let best;
  for (let i = 0; i < readings; i++) {
    const m = await target.memory();
    if (!best || m.heapUsed < best.heapUsed) best = m;
    await sleep(150);
  }
  await sleep(850); // then the settled resident memory (proc.mjs residentBytes)
  return { ...best, resident: residentBytes(target.child.pid) ?? NaN };
}

/**
 * Memory with sockets open and none subscribed, then with `perSocket` subscriptions on each
 * of `sockets` sockets; `settled()` resolves once what they set off is done (relayed
 * upstream). Returns the per-item costs and the open subscribers (the caller closes them).
 */
async function idleSubscriptionMemory(target, signatures, { sockets, perSocket, settled }) {
  const empty = await settledMemory(target);
  const subscribers = [];
  for (let i = 0; i < sockets; i++) subscribers.push(await openSubscriber(target.url));
  const open = await settledMemory(target);
  await Promise.all(
    subscribers.map((s, i) => s.subscribe(signatures.slice(i * perSocket, (i + 1) * perSocket))),
  );
  await settled?.();
  const subscribed = await settledMemory(target);
  const n = sockets * perSocket;
  return {
    subscribers,
    memory: {
      sockets,
      subscriptions: n,
      readings: { empty, open, subscribed },
      heapBytesPerSocket: (open.heapUsed - empty.heapUsed) / sockets,
      heapBytesPerSubscription: (subscribed.heapUsed - open.heapUsed) / n,
      rssBytesPerSubscription: (subscribed.rss - open.rss) / n,
      residentBytesPerSubscription: (subscribed.resident - open.resident) / n,
      gcExposed: subscribed.gc,
    },
  };
}

// A busy server answers /metrics between poll rounds of 10,000 signatures: be patient.
const getText = async (url) => (await fetch(url, { signal: AbortSignal.timeout(30_000) })).text();

/** The value of an unlabelled Prometheus counter, or NaN when absent. */
export function counterValue(text, metric) {
  const m = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Polls until the server counted more than `after` poll rounds; resolves with the count. */
async function roundEnded(metricsUrl, after, timeoutMs = 60_000) {
  for (const give = Date.now() + timeoutMs; ; await sleep(10)) {
    const n = counterValue(await getText(metricsUrl), POLL_ROUNDS);
    if (!Number.isFinite(n)) throw new Error(`no ${POLL_ROUNDS} on ${metricsUrl}`);
    if (after !== undefined && n > after) return n;
    if (after === undefined) after = n;
    else if (Date.now() > give) throw new Error(`no poll round ended within ${timeoutMs} ms`);
  }
}

/**
 * The stand-in's request count (`GET /hits`) over `rounds` whole poll rounds, read just after
 * a round ends. The first round is skipped: the subscriptions' own lookups may be under way.
 */
async function requestsPerRound(metricsUrl, helperUrl, rounds = 5) {
  const first = await roundEnded(metricsUrl, await roundEnded(metricsUrl));
  const hitsBefore = Number(await getText(`${helperUrl}/hits`));
  let seen = first;
  while (seen < first + rounds) seen = await roundEnded(metricsUrl, seen);
  const requests = Number(await getText(`${helperUrl}/hits`)) - hitsBefore;
  return { rounds: seen - first, requests, perRound: requests / (seen - first) };
}

/** The reference server (production settings, --expose-gc) in front of `upstream`; throws when absent. */
export async function referenceServer(upstream, extra = []) {
  const args = ['--settings', 'production', '--statuses', 'memory', '--upstream', upstream, ...extra];
  const target = await startTarget('server.mjs', args, { nodeArgs: ['--expose-gc'] });
  if (target.absent) throw new Error(`reference server absent: ${target.absent}`);
  return target;
}

/** Both idle-subscription figures; resolves with `{ memory, poll }` or `{ error }`. */
export async function measureSubscriptions(log) {
  log(`subscriptions: ${SOCKETS} sockets x ${PER_SOCKET} signatureSubscribe on unknown signatures`);
  const helper = await startTarget('upstream-standin.mjs');
  let target;
  let stage = 'start';
  try {
    target = await referenceServer(helper.url);
    const n = SOCKETS * PER_SOCKET;
    const signatures = randomSignatureTexts(n);
    await tellStandIn(helper.url, 'pending', signatures);
    stage = 'memory per subscription';
    const { subscribers, memory } = await idleSubscriptionMemory(target, signatures, {
      sockets: SOCKETS,
      perSocket: PER_SOCKET,
    });
    try {
      stage = 'requests per poll round';
      const poll = await requestsPerRound(target.url + target.metricsPath, helper.url);
      const notified = subscribers.reduce((k, s) => k + s.notifications, 0);
      return { memory, poll: { pending: n, expected: Math.ceil(n / MAX_BATCH), notified, ...poll } };
    } finally {
      await Promise.all(subscribers.map((s) => s.close()));
    }
  } catch (err) {
    return { error: `${stage}: ${err.message}` };
  } finally {
    await target?.stop();
    await helper.stop();
  }
}

const kb = (bytes) => (bytes / 1024).toFixed(1);

export function subscriptionLines(result) {
  const head = 'subscriptions (issue 10), reference server, production settings, upstream stand-in:';
  if (result.error) return [head, `  not measured: ${result.error}`].join('\n');
  const { memory: m, poll: p } = result;
  const ok = Math.round(p.perRound) === p.expected && p.notified === 0;
  return [
    head,
    `  memory per idle subscription: ${Math.round(m.heapBytesPerSubscription)} B of heap after a forced GC ` +
      `(${m.sockets} sockets x ${m.subscriptions / m.sockets} subscriptions; settled resident ${Math.round(m.residentBytesPerSubscription)} B; ` +
      `an open socket alone ${kb(m.heapBytesPerSocket)} KB)${m.gcExposed ? '' : ' - NO forced GC: figures are noisy'}`,
    `  upstream requests per poll round at ${p.pending.toLocaleString('en-US')} pending: ${p.perRound.toFixed(1)} ` +
      `(${p.requests} in ${p.rounds} rounds; expected ceil(${p.pending}/${MAX_BATCH}) = ${p.expected}): ` +
      `${ok ? 'ok' : `NOT as expected${p.notified ? ` (${p.notified} notified)` : ''}`}`,
  ].join('\n');
}

/**
 * A TCP proxy to `target` ({ host, port }) counting its connections and the subscribe
 * acknowledgements coming back (`"result":<number>`: A's frames are plain text, unmasked).
 */
async function countingProxy(target) {
  const counts = { accepted: 0, live: 0, acks: 0 };
  const sockets = new Set();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    counts.accepted += 1;
    counts.live += 1;
    let tail = '';
    upstream.on('data', (chunk) => {
      const text = tail + chunk.toString('latin1');
      counts.acks += text.match(/"result":\d/g)?.length ?? 0;
      tail = text.slice(-12).replace(/"result":\d.*$/, ''); // a match split between chunks
    });
    for (const [s, other] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(s);
      s.on('error', () => s.destroy()).on('close', () => (sockets.delete(s), other.destroy()));
    }
    client.once('close', () => (counts.live -= 1));
    client.pipe(upstream).pipe(client);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return {
    counts,
    url: `ws://127.0.0.1:${proxy.address().port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      proxy.close();
    },
  };
}

const until = async (check, what, ms = 60_000) => {
  if (!(await waitUntil(check, ms))) throw new Error(`${what}: not within ${ms / 1000} s`);
};

/** The relay's figures, `{ memory, upstreamSockets }` or `{ error }`; `sockets` x `perSocket` subscriptions. */
export async function measureRelay(log, { sockets = 500, perSocket = 20 } = {}) {
  const n = sockets * perSocket;
  log(`relay: ${sockets} sockets x ${perSocket} signatureSubscribe relayed to validator A's websocket`);
  const ws = new URL(deriveWsUrl(VALIDATOR_URL));
  const proxy = await countingProxy({ host: ws.hostname, port: Number(ws.port) });
  let target;
  let stage = 'start';
  try {
    target = await referenceServer(VALIDATOR_URL, ['--upstream-ws', proxy.url]);
    await until(() => proxy.counts.live > 0, 'the upstream socket');
    stage = 'memory per relayed subscription';
    const { subscribers, memory } = await idleSubscriptionMemory(target, randomSignatureTexts(n), {
      sockets,
      perSocket,
      settled: () => until(() => proxy.counts.acks >= n, `${n} upstream acknowledgements`),
    });
    const result = { memory, upstreamSockets: { ...proxy.counts } };
    stage = 'closing';
    await Promise.all(subscribers.map((s) => s.close()));
    return result;
  } catch (err) {
    return { error: `${stage}: ${err.message}` };
  } finally {
    await target?.stop();
    proxy.close();
  }
}

export function relayLines(result) {
  const head =
    "relay: signatureSubscribe relayed to validator A's websocket, reference server, production settings:";
  if (result.error) return `${head}\n  not measured: ${result.error}`;
  const { memory: m, upstreamSockets: u } = result;
  return [
    head,
    `  memory per relayed subscription (${m.sockets} sockets x ${m.subscriptions / m.sockets}): ` +
      `${Math.round(m.heapBytesPerSubscription)} B of heap after a forced GC, ` +
      `${Math.round(m.residentBytesPerSubscription)} B of settled resident memory${m.gcExposed ? '' : ' - NO forced GC'}`,
    `  upstream sockets at ${m.subscriptions.toLocaleString('en-US')} subscriptions: ${u.live} open ` +
      `(${u.accepted} opened in all; ${u.acks.toLocaleString('en-US')} subscriptions acknowledged upstream)`,
  ].join('\n');
}
