// Load over JSON-RPC WebSocket, shaped like autocannon's (load.mjs) so a socket row runs
// through the same rounds, CPU window and summary as an HTTP row: `connections` sockets,
// each with `pipelining` calls in flight, closed loop (a call goes out when an answer
// comes back). autocannon has no WebSocket mode; this client is `ws`, in this process.
import { once } from 'node:events';
import WebSocket from 'ws';
import { latencyHistogram, loadResult, measureLoad, warmUp } from './load.mjs';

/** `http://host:port/path` → `ws://host:port/path`: the reference server upgrades at its mount root. */
export const socketUrl = (url, path) => new URL(path, url.replace(/^http/, 'ws')).href;

/** The bodies one connection cycles through. */
const bodiesOf = (requests) => requests.flatMap((r) => r.bodies ?? [r.body]);

async function openSockets(url, n) {
  const sockets = Array.from({ length: n }, () => new WebSocket(url, { perMessageDeflate: false }));
  await Promise.all(sockets.map((ws) => once(ws, 'open')));
  return sockets;
}

/** Drives one socket until `deadline`; counts answers, failures, and latency into `totals`. */
function drive(ws, bodies, inFlight, deadline, totals, histogram) {
  return new Promise((resolve) => {
    const sentAt = [];
    let next = 0;
    const send = () => {
      sentAt.push(performance.now());
      ws.send(bodies[next++ % bodies.length]);
    };
    ws.on('message', (data) => {
      // Answers come back in order on one socket for these synchronous-enough calls; the
      // latency of a reordered pair is swapped, their sum is not.
      const ms = performance.now() - sentAt.shift(); // not inside `histogram?.`: it must always run
      histogram?.record(ms);
      totals.requests += 1;
      totals.bytes += data.length;
      if (!String(data).includes('"result"')) totals.non2xx += 1;
      if (performance.now() < deadline) send();
      else if (sentAt.length === 0) resolve();
    });
    ws.once('close', () => {
      totals.errors += sentAt.length;
      resolve();
    });
    for (let i = 0; i < inFlight; i++) send();
  });
}

async function run(url, requests, { connections, pipelining, seconds }, histogram, onStart) {
  const sockets = await openSockets(url, connections);
  const totals = { requests: 0, bytes: 0, non2xx: 0, errors: 0 };
  const bodies = bodiesOf(requests);
  onStart?.();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(sockets.map((ws) => drive(ws, bodies, pipelining, deadline, totals, histogram)));
  const finish = performance.now();
  for (const ws of sockets) ws.close();
  return { ...totals, seconds: (finish - start) / 1000 };
}

/** Load that is not measured, over sockets: JIT, caches; `seconds` of it. */
export async function warmUpSocket(url, requests, { connections, pipelining }, seconds) {
  if (seconds > 0)
    await run(socketUrl(url, requests[0].path), requests, { connections, pipelining, seconds });
}

/** What measureLoad (load.mjs) returns, over sockets; `settings.duration` seconds. */
export async function measureSocketLoad(url, requests, settings, onStart) {
  const histogram = latencyHistogram();
  const r = await run(
    socketUrl(url, requests[0].path),
    requests,
    { connections: settings.connections, pipelining: settings.pipelining, seconds: settings.duration },
    histogram,
    onStart,
  );
  return loadResult(r.requests, r.seconds, histogram, r, r.bytes / r.seconds);
}

const HTTP = { measure: measureLoad, warmUp };
const WEBSOCKET = { measure: measureSocketLoad, warmUp: warmUpSocket };

/** `{ measure, warmUp }` of case `c`: JSON-RPC over WebSocket for rows with `transport: 'websocket'`. */
export const loadFor = (c) => (c.transport === 'websocket' ? WEBSOCKET : HTTP);
