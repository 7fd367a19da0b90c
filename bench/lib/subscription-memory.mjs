// Memory of idle subscriptions: the server's heap after a forced GC (the target runs
// with --expose-gc; SIGUSR2 collects and reports, see targets/lib/serve.mjs) with
// sockets open and no subscription, then with every subscription made. A poll round
// under way holds its own garbage-to-be; the lowest of a few readings leaves it out.
// `resident`: the settled resident memory (resident.mjs), read a second after the last GC.
import { setTimeout as sleep } from 'node:timers/promises';
import { residentBreakdown } from './resident.mjs';
import { openSubscriber } from './subscribers.mjs';

async function settledMemory(target, readings = 3) {
  let best;
  for (let i = 0; i < readings; i++) {
    const m = await target.memory();
    if (!best || m.heapUsed < best.heapUsed) best = m;
    await sleep(150);
  }
  await sleep(850);
  return { ...best, resident: residentBreakdown(target.child.pid)?.total ?? NaN };
}

/**
 * Opens `sockets` sockets of `perSocket` subscriptions each, on `signatures`; returns the
 * memory readings and per-item costs, and the open subscribers (the caller closes them).
 * `settled()` resolves once what the subscriptions set off is done (relayed upstream).
 */
export async function idleSubscriptionMemory(target, signatures, { sockets, perSocket, settled }) {
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
