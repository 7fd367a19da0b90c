// The soak's WebSocket subscriptions (issue 12: "1M mixed calls, including WebSocket
// subscriptions"): while the HTTP load runs, a few clients churn signatureSubscribe
// against the same server: open a socket, subscribe to signatures the upstream stand-in
// does not know, have the stand-in learn some (the server's poll notifies those),
// unsubscribe the rest, close, reopen. The soak's RSS checkpoints then cover them.
import { randomSignatureTexts } from './requests.mjs';
import { openSubscriber, tellStandIn, waitUntil } from './subscribers.mjs';

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

/**
 * Starts subscription churn next to the HTTP load against `target` (with `helper`, its
 * upstream stand-in); resolves with `{ active, reason, stop() }`; stop() resolves with the counts.
 */
export async function startSubscriptions(target, helper, log) {
  try {
    await (await openSubscriber(target.url)).close();
  } catch (err) {
    return { active: false, reason: `no WebSocket on the target: ${err.message}`, stop: async () => ({}) };
  }
  const counts = { sockets: 0, subscriptions: 0, notifications: 0, unsubscribed: 0, missed: 0, errors: 0 };
  let running = true;
  const client = async () => {
    while (running) {
      try {
        await cycle(target, helper.url, counts);
      } catch (err) {
        counts.errors += 1;
        if (counts.errors <= 3) log(`  subscription churn: ${err.message}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  log(`  WebSocket subscriptions: ${CLIENTS} clients churning ${PER_SOCKET} signatureSubscribe per socket`);
  return {
    active: true,
    stop: async () => {
      running = false;
      await Promise.all(clients);
      return counts;
    },
  };
}
