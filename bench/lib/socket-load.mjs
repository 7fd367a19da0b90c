// Load over JSON-RPC WebSocket, shaped like autocannon's (load.mjs) so a socket row runs
// through the same rounds, CPU window and summary as an HTTP row: `connections` sockets,
// each with one call in flight, closed loop (a call goes out when its answer comes back).
// autocannon has no WebSocket mode; this client is `ws`, in this process.
import { once } from 'node:events';
import WebSocket from 'ws';
import { latencyHistogram, loadResult, measureLoad, warmUp } from './load.mjs';

/** `http://host:port/path` → `ws://host:port/path`: the reference server upgrades at its mount root. */
export const socketUrl = (url, path) => new URL(path, url.replace(/^http/, 'ws')).href;

/** Drives one socket until `deadline`; counts answers, failures, and latency into `totals`. */
function drive(ws, bodies, deadline, totals, histogram) {
  return new Promise((resolve) => {
    let sentAt;
    let next = 0;
    const send = () => {
      sentAt = performance.now();
      ws.send(bodies[next++ % bodies.length]);
    };
    ws.on('message', (data) => {
      histogram?.record(performance.now() - sentAt);
      totals.requests += 1;
      totals.bytes += data.length;
      if (!String(data).includes('"result"')) totals.non2xx += 1;
      if (performance.now() < deadline) send();
      else resolve();
    });
    ws.once('close', () => {
      totals.errors += 1;
      resolve();
    });
    send();
  });
}

/** `seconds` of load on `connections` sockets; `histogram` (measured runs only) gets the latencies. */
async function run(url, requests, connections, seconds, histogram, onStart) {
  const sockets = Array.from({ length: connections }, () => new WebSocket(url, { perMessageDeflate: false }));
  await Promise.all(sockets.map((ws) => once(ws, 'open')));
  const totals = { requests: 0, bytes: 0, non2xx: 0, errors: 0 };
  const bodies = requests.flatMap((r) => r.bodies ?? [r.body]);
  onStart?.();
  const start = performance.now();
  await Promise.all(sockets.map((ws) => drive(ws, bodies, start + seconds * 1000, totals, histogram)));
  const elapsed = (performance.now() - start) / 1000;
  for (const ws of sockets) ws.removeAllListeners('close').close();
  return { ...totals, seconds: elapsed };
}

/** Load that is not measured, over sockets: JIT, caches; `seconds` of it. */
export async function warmUpSocket(url, requests, { connections }, seconds) {
  if (seconds > 0) await run(socketUrl(url, requests[0].path), requests, connections, seconds);
}

/** What measureLoad (load.mjs) returns, over sockets; `settings.duration` seconds. */
export async function measureSocketLoad(url, requests, settings, onStart) {
  const histogram = latencyHistogram();
  const target = socketUrl(url, requests[0].path);
  const r = await run(target, requests, settings.connections, settings.duration, histogram, onStart);
  return loadResult(r.requests, r.seconds, histogram, r, r.bytes / r.seconds);
}

const HTTP = { measure: measureLoad, warmUp };
const WEBSOCKET = { measure: measureSocketLoad, warmUp: warmUpSocket };

/** `{ measure, warmUp }` of case `c`: JSON-RPC over WebSocket for rows with `transport: 'websocket'`. */
export const loadFor = (c) => (c.transport === 'websocket' ? WEBSOCKET : HTTP);
