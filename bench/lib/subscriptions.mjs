// Issue 10's subscription figures, from one reference server with production settings
// in front of the upstream stand-in, told that none of the signatures is known yet:
// the heap per idle signatureSubscribe subscription, and the upstream requests per poll
// round at 10,000 pending subscriptions (ceil(10000/256) = 40 if they are batched).
import { requestsPerRound } from './poll-rounds.mjs';
import { startTarget } from './processes.mjs';
import { idleSubscriptionMemory } from './subscription-memory.mjs';
import { tellStandIn, unknownSignatures } from './subscribers.mjs';

// 1000 is the default maxSubscriptionsPerConnection: 10 sockets reach 10,000.
const SOCKETS = 10;
const PER_SOCKET = 1000;
const MAX_BATCH = 256;

async function measure(target, helper, stage) {
  const n = SOCKETS * PER_SOCKET;
  const signatures = unknownSignatures(n);
  await tellStandIn(helper.url, 'pending', signatures);
  stage.now = 'memory per subscription';
  const { subscribers, memory } = await idleSubscriptionMemory(target, signatures, {
    sockets: SOCKETS,
    perSocket: PER_SOCKET,
  });
  try {
    stage.now = 'requests per poll round';
    const poll = await requestsPerRound(target.url + target.metricsPath, helper.url);
    const notified = subscribers.reduce((k, s) => k + s.notifications, 0);
    return { memory, poll: { pending: n, expected: Math.ceil(n / MAX_BATCH), notified, ...poll } };
  } finally {
    await Promise.all(subscribers.map((s) => s.close()));
  }
}

/** Runs both measurements; resolves with `{ memory, poll }` or `{ error }`. */
export async function measureSubscriptions(log) {
  log(`subscriptions: ${SOCKETS} sockets x ${PER_SOCKET} signatureSubscribe on unknown signatures`);
  const helper = await startTarget('upstream-standin.mjs');
  let target;
  const stage = { now: 'start' };
  try {
    const args = ['--settings', 'production', '--statuses', 'memory', '--upstream', helper.url];
    target = await startTarget('server.mjs', args, { nodeArgs: ['--expose-gc'] });
    if (target.absent) return { error: `reference server absent: ${target.absent}` };
    return await measure(target, helper, stage);
  } catch (err) {
    return { error: `${stage.now}: ${err.message}` };
  } finally {
    await target?.stop?.();
    await helper.stop();
  }
}

const kb = (bytes) => (bytes / 1024).toFixed(1);

/** The lines printed under the table. */
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
