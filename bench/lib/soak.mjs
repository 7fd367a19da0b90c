// Soak: 1,000,000 mixed requests (calls, batches, path-style, errors) against the
// reference server with production settings, plus a few clients churning signatureSubscribe
// beside it: open a socket, subscribe to signatures the stand-in does not know, have it learn
// some (the server's poll notifies them), unsubscribe the rest, close, reopen.
// RSS after a collected heap at 10%, 40%, 70% and 100% of the calls. A leak grows with the
// calls; warm-up (V8's old space and the allocator reaching their working size) levels off.
// The verdict is the growth from the 40% reading to the end: more than 10% is a leak (judged
// from 10%, a 1M soak flagged +12% while a 3M soak ended at the same RSS). It leaves out V8's
// young generation, which is bounded and grows to its size under load (Node 24: to 128 MB).
import { benchSignatures } from '../targets/lib/fixtures.mjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { measureLoad } from './load.mjs';
import { mb, residentBytes } from './proc.mjs';
import { rpcCall } from './peers.mjs';
import { startTarget } from './processes.mjs';
import {
  call,
  freshSignatureBodies,
  getRoutes,
  getSignatureStatuses,
  randomSignatureTexts,
} from './requests.mjs';
import { openSubscriber, tellStandIn, waitUntil } from './subscribers.mjs';
import { referenceServer } from './subscriptions.mjs';

export const LEAK_THRESHOLD = 0.1;

/** RSS read at the GC swung by up to 50 MB between readings: read the settled figure (proc.mjs) a second later. */
const SETTLE_MS = 1000;

/** Shares of the calls after which RSS is read; the verdict runs from the second to the last. */
const READ_AT = [0.1, 0.4, 0.7, 1];

function mixedRequests(sigs) {
  const bad = call('getSignatureStatuses', [['not-base58-0OIl']]);
  return [
    { path: '/', body: getRoutes() },
    { path: '/', body: getSignatureStatuses(sigs.slice(0, 1)) },
    { path: '/', body: getSignatureStatuses(sigs) },
    { path: '/', bodies: freshSignatureBodies(8192, 1) }, // through the upstream, then cached (1000 max)
    { path: '/', body: `[${getRoutes()},${getSignatureStatuses(sigs.slice(0, 4))},${call('getHealth')}]` },
    { path: '/', body: bad }, // -32602 path
    { path: '/getRoutes', body: getRoutes() }, // path-style endpoint
    { path: '/', body: call('rpc.discover') },
  ];
}

const CLIENTS = 4;
const PER_SOCKET = 50;
const LEARNED = 20; // of PER_SOCKET, notified; the others are unsubscribed
const NOTIFY_WAIT_MS = 3_000; // several poll rounds (400 ms each)

/** One socket's life: subscribe, learn some, wait for their notifications, unsubscribe the rest, close. */
async function cycle(target, helperUrl, counts) {
  const signatures = randomSignatureTexts(PER_SOCKET);
  await tellStandIn(helperUrl, 'pending', signatures);
  const client = await openSubscriber(target.url);
  counts.sockets += 1;
  try {
    const ids = await client.subscribe(signatures);
    counts.subscriptions += ids.length;
    const notified = new Set();
    client.onNotification = (id) => notified.add(id);
    await tellStandIn(helperUrl, 'learn', signatures.slice(0, LEARNED));
    await waitUntil(() => notified.size >= LEARNED, NOTIFY_WAIT_MS);
    const rest = ids.filter((id) => !notified.has(id));
    await client.unsubscribe(rest);
    counts.unsubscribed += rest.length;
    counts.notifications += client.notifications;
    counts.missed += Math.max(0, LEARNED - notified.size);
  } finally {
    await client.close();
    await tellStandIn(helperUrl, 'learn', signatures); // the stand-in forgets them
  }
}

/** Starts subscription churn beside the HTTP load on `target` (`helper`: its stand-in); `stop()` gives the counts. */
function startSubscriptions(target, helper, log) {
  const counts = { sockets: 0, subscriptions: 0, notifications: 0, unsubscribed: 0, missed: 0, errors: 0 };
  let running = true;
  const client = async () => {
    while (running) {
      try {
        await cycle(target, helper.url, counts);
      } catch (err) {
        counts.errors += 1;
        if (counts.errors <= 3) log(`  subscription churn: ${err.message}`);
        await sleep(500);
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  log(`  WebSocket subscriptions: ${CLIENTS} clients churning ${PER_SOCKET} signatureSubscribe per socket`);
  const stop = async () => {
    running = false;
    await Promise.all(clients);
    return counts;
  };
  return { stop };
}

const SERVER = 'reference server, production settings (1000-entry cache, upstream stand-in)';

export async function soak(settings, log) {
  const total = settings.soakCalls;
  const sigs = benchSignatures(256);
  const helper = await startTarget('upstream-standin.mjs');
  const target = await referenceServer(helper.url, ['--statuses', 'soak']);
  try {
    await rpcCall(target.url, getSignatureStatuses(sigs), 10_000); // primed: the known rows are hits
    const start = await target.memory();
    const many = total.toLocaleString('en-US');
    log(`soak: ${many} mixed requests, ${settings.connections} connections, against ${SERVER}`);
    const churn = startSubscriptions(target, helper, log);
    const { readings, runs } = await loadAndRead(target, mixedRequests(sigs), settings, log);
    const subscriptions = await churn.stop();
    log(`  subscription churn: ${JSON.stringify(subscriptions)}`);
    const failures = runs.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0);
    return {
      server: SERVER,
      requests: total,
      connections: settings.connections,
      memory: { start, readings },
      ...verdict(readings, total, failures, log),
      failures,
      subscriptions,
      reqPerSec: runs.reduce((n, r) => n + r.totalRequests, 0) / runs.reduce((t, r) => t + r.seconds, 0),
      gcExposed: readings[readings.length - 1].gc,
    };
  } finally {
    await target.stop();
    await helper.stop();
  }
}

/** The calls in READ_AT shares, the target's memory read after each: `{ readings, runs }`. */
async function loadAndRead(target, requests, settings, log) {
  const total = settings.soakCalls;
  const readings = [];
  const runs = [];
  let done = 0;
  for (const share of READ_AT) {
    const amount = Math.round(total * share) - done;
    runs.push(await measureLoad(target.url, requests, { ...settings, amount }));
    done += amount;
    // Read while the churn still runs, every time: like is compared with like.
    const memory = await target.memory();
    await sleep(SETTLE_MS);
    const rss = residentBytes(target.child.pid) ?? memory.rss; // settled, see SETTLE_MS
    const young = memory.spaces?.new_space?.size ?? 0;
    const reading = { calls: done, ...memory, rssAtGc: memory.rss, rss, judged: rss - young, young };
    readings.push(reading);
    log(
      `  after ${done.toLocaleString('en-US')} requests: RSS ${mb(reading.rss)} MB, heap ${mb(memory.heapUsed)} MB` +
        (memory.mallocHeap === undefined ? '' : `, malloc heap ${mb(memory.mallocHeap)} MB`) +
        `, V8 young generation ${mb(young)} MB`,
    );
  }
  return { readings, runs };
}

/** The growth judged from the second reading to the last, logged with where a change in RSS is. */
function verdict(readings, total, failures, log) {
  const [atCheckpoint, judgedFrom] = readings;
  const atEnd = readings[readings.length - 1];
  const growth = (atEnd.judged - judgedFrom.judged) / judgedFrom.judged;
  const warmUp = (judgedFrom.judged - atCheckpoint.judged) / atCheckpoint.judged;
  const leak = growth > LEAK_THRESHOLD;
  log(
    `  RSS growth beside V8's young generation from ${judgedFrom.calls.toLocaleString('en-US')} to ${total.toLocaleString('en-US')} requests ` +
      `${(growth * 100).toFixed(1)}% (limit ${LEAK_THRESHOLD * 100}%): ${leak ? 'LEAK' : 'ok'}; ` +
      `before it, from ${atCheckpoint.calls.toLocaleString('en-US')}: ${(warmUp * 100).toFixed(1)}%; transport errors/non-2xx: ${failures}`,
  );
  if (judgedFrom.mallocHeap !== undefined) {
    // Where a rise is: V8's heap, native memory (SQLite's page cache, addons) or the rest.
    const heap = atEnd.heapUsed - judgedFrom.heapUsed;
    const native = atEnd.mallocHeap - judgedFrom.mallocHeap;
    const young = atEnd.young - judgedFrom.young;
    const rest = atEnd.rss - judgedFrom.rss - heap - native - young;
    log(
      `  of the RSS change: JS heap ${signedMb(heap)}, malloc heap ${signedMb(native)}, ` +
        `V8 young generation ${signedMb(young)}, the rest ${signedMb(rest)} MB`,
    );
  }
  return { rssGrowth: growth, rssGrowthFrom: judgedFrom.calls, rssWarmUp: warmUp, leak };
}

const signedMb = (bytes) => (bytes >= 0 ? '+' : '') + mb(bytes);
