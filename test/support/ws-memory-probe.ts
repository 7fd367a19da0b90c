// Run as `node --expose-gc --import tsx ws-memory-probe.ts UPSTREAM_URL`: the server in this
// process, 1,000 sockets x 10 idle signatureSubscribe, heap measured after a full GC at each
// step; prints one JSON line. Run apart from mocha so gc() is available and nothing else allocates.
import { randomSignatures } from './solana.js';
import { TestSocket } from './ws-client.js';
import { startWith } from './ws-server.js';

const gc = (globalThis as { gc?: () => void }).gc!;
const heap = async (): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
};

const server = await startWith({
  logLevel: 'error',
  statuses: { upstreams: [{ url: process.argv[2]! }], subscriptions: { pollIntervalMs: 400 } },
  websocket: { port: false, limits: { maxConnectionsPerIp: 2000 } },
});
const url = `ws://127.0.0.1:${server.port}/`;
const signatures = randomSignatures(10_000);
const baseline = await heap();
const sockets: TestSocket[] = [];
for (let i = 0; i < 1000; i += 100)
  sockets.push(...(await Promise.all(Array.from({ length: 100 }, () => TestSocket.open(url)))));
const connected = await heap();
await Promise.all(
  sockets.map(async (socket, i) => {
    for (let j = 0; j < 10; j++)
      socket.send(
        `{"jsonrpc":"2.0","id":${j},"method":"signatureSubscribe","params":["${signatures[i * 10 + j]}"]}`,
      );
    for (let j = 0; j < 10; j++) await socket.next(60_000);
  }),
);
const subscribed = await heap();
const active = server.rpc.subscriptions.active;
await Promise.all(sockets.map((s) => s.close()));
while (server.rpc.subscriptions.active > 0) await new Promise((r) => setTimeout(r, 20));
const closed = await heap();
console.log(
  JSON.stringify({ baseline, connected, subscribed, closed, active, rss: process.memoryUsage().rss }),
);
await server.shutdown(0);
server.cleanup();
process.exit(0);
