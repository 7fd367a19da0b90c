// Socket vs HTTP in the same run (issue 10): the core serving one trivial method, over
// `attachWebSocket` and over `createNodeListener` on the same port, in a child process;
// this process is the client: N calls, C in flight, over one socket (pipelined) and over
// C keep-alive HTTP connections (undici Pool). Prints one JSON line. Standalone:
//   node bench/targets/websocket-compare.mjs [--calls 50000] [--inflight 64]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { attachWebSocket, createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { benchLogger } from './lib/bench-logger.mjs';
import { TRIVIAL_METHOD, TRIVIAL_RESULT } from './lib/trivial.mjs';

const { values } = parseArgs({
  options: { serve: { type: 'boolean' }, calls: { type: 'string' }, inflight: { type: 'string' } },
});

if (values.serve) {
  const ping = defineMethod({ name: TRIVIAL_METHOD, handler: () => TRIVIAL_RESULT });
  const rpc = createRpc({ methods: [ping], logger: benchLogger() });
  await rpc.start();
  const server = http.createServer(createNodeListener(rpc));
  attachWebSocket(server, rpc);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
} else {
  const calls = Number(values.calls ?? 50_000);
  const inflight = Number(values.inflight ?? 64);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(child.stdout, 'data');
  const { port } = JSON.parse(String(line).split('\n')[0]);
  const body = (id) => `{"jsonrpc":"2.0","id":${id},"method":"${TRIVIAL_METHOD}"}`;

  const overSocket = async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    await once(ws, 'open');
    let sent = 0;
    let done = 0;
    const started = performance.now();
    await new Promise((resolve) => {
      ws.on('message', () => {
        done += 1;
        if (sent < calls) ws.send(body(sent++));
        if (done === calls) resolve();
      });
      while (sent < Math.min(inflight, calls)) ws.send(body(sent++));
    });
    const ms = performance.now() - started;
    ws.close();
    return { callsPerSecond: Math.round((calls / ms) * 1000) };
  };

  const overHttp = async () => {
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: inflight });
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < calls) {
        const id = next++;
        const res = await pool.request({
          path: '/',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(id),
        });
        await res.body.text();
      }
    };
    await Promise.all(Array.from({ length: inflight }, worker));
    const ms = performance.now() - started;
    await pool.close();
    return { callsPerSecond: Math.round((calls / ms) * 1000) };
  };

  await overSocket(); // warm-up, both paths
  await overHttp();
  const socket = await overSocket();
  const httpResult = await overHttp();
  child.kill('SIGTERM');
  console.log(
    JSON.stringify({
      method: TRIVIAL_METHOD,
      calls,
      inflight,
      websocket: socket,
      http: httpResult,
      ratio: +(socket.callsPerSecond / httpResult.callsPerSecond).toFixed(2),
    }),
  );
}
