// The relay's figures: signatureSubscribe relayed to validator A's own websocket, 10,000
// subscriptions on signatures A does not know, over 500 client sockets, to the reference
// server with production settings whose one upstream is A, its websocket reached through a
// TCP proxy in this process that counts the sockets opened through it and the upstream's
// acknowledgements. Reported: the server's memory per relayed subscription (heap after a
// forced GC, settled resident memory) and how many upstream sockets the 10,000 took.
import { once } from 'node:events';
import net from 'node:net';
import { deriveWsUrl } from '@rollup-router/core/internal';
import { VALIDATOR_URL } from './peers.mjs';
import { startTarget } from './processes.mjs';
import { idleSubscriptionMemory } from './subscription-memory.mjs';
import { unknownSignatures } from './subscribers.mjs';

/**
 * A TCP proxy to `target` ({ host, port }) counting its connections and the subscribe
 * acknowledgements coming back (`"result":<number>`: A's frames are plain text, unmasked).
 */
async function countingProxy(target) {
  const counts = { accepted: 0, live: 0, acks: 0 };
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    counts.accepted += 1;
    counts.live += 1;
    let tail = '';
    upstream.on('data', (chunk) => {
      const text = tail + chunk.toString('latin1');
      counts.acks += text.match(/"result":\d/g)?.length ?? 0;
      tail = text.slice(-12).replace(/"result":\d.*$/, ''); // a match split between chunks
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy()).on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => {
      counts.live -= 1;
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    counts,
    url: `ws://127.0.0.1:${server.address().port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const until = async (check, what, ms = 60_000) => {
  for (const give = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > give) throw new Error(`${what}: not within ${ms / 1000} s`);
};

/** `{ memory, upstreamSockets, ... }` or `{ error }`; `sockets` x `perSocket` subscriptions. */
export async function measureRelay(log, { sockets = 500, perSocket = 20 } = {}) {
  const n = sockets * perSocket;
  log(`relay: ${sockets} sockets x ${perSocket} signatureSubscribe relayed to validator A's websocket`);
  const ws = new URL(deriveWsUrl(VALIDATOR_URL));
  const proxy = await countingProxy({ host: ws.hostname, port: Number(ws.port) });
  let target;
  let stage = 'start';
  try {
    const args = ['--settings', 'production', '--statuses', 'memory', '--upstream', VALIDATOR_URL];
    target = await startTarget('server.mjs', [...args, '--upstream-ws', proxy.url], {
      nodeArgs: ['--expose-gc'],
    });
    if (target.absent) return { error: `reference server absent: ${target.absent}` };
    await until(() => proxy.counts.live > 0, 'the upstream socket');
    stage = 'memory per relayed subscription';
    const { subscribers, memory } = await idleSubscriptionMemory(target, unknownSignatures(n), {
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
    await target?.stop?.();
    proxy.close();
  }
}

/** The lines printed under the table. */
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
