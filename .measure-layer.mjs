// Throwaway measurement (not committed): added latency of the Redis layer on a miss and a hit.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import bs58 from 'bs58';
import { createLogger } from './packages/core/dist/index.js';
import { signatureStatusesPlugin } from './packages/signature-statuses/dist/index.js';

const port = 16400;
const redisProc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp/rtest'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 300));
const sig = () => bs58.encode(randomBytes(64));
const fin = (slot) => ({ confirmationStatus: 'finalized', confirmations: null, err: null, slot, status: { Ok: null } });
const upstream = http.createServer((req, res) => {
  let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => {
    const call = JSON.parse(b);
    const value = call.params[0].map(() => fin(7));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', result: { context: { apiVersion: '2.2.1', slot: 9 }, value }, id: call.id }));
  });
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${upstream.address().port}`;
const log = createLogger({ level: 'silent' });
const make = async (redis) => {
  const p = signatureStatusesPlugin({ upstreams: [{ url }], memory: { maxEntries: 0 }, ...(redis ? { redis: { url: `redis://127.0.0.1:${port}` } } : {}) });
  await p.start({ log });
  return p;
};
const pct = (xs, q) => xs.sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
async function measure(name, plugin, sigFor) {
  const times = [];
  for (let i = 0; i < 300; i++) await plugin.lookup([sigFor(i)]); // warm-up
  for (let i = 0; i < 3000; i++) {
    const s = sigFor(i);
    const t = performance.now();
    await plugin.lookup([s]);
    times.push(performance.now() - t);
  }
  console.log(`${name.padEnd(44)} p50 ${pct(times, 0.5).toFixed(3)} ms  p99 ${pct(times, 0.99).toFixed(3)} ms`);
}
const plain = await make(false);
const shared = await make(true);
await measure('miss, no redis (memory off, upstream)', plain, () => sig());
await measure('miss, redis layer (MGET miss, upstream, SET)', shared, () => sig());
const known = Array.from({ length: 3000 }, sig);
for (const s of known) await shared.lookup([s]);
await new Promise((r) => setTimeout(r, 200));
const reader = await make(true); // a second instance: its memory is off, so Redis answers
await measure('hit in redis (memory off, second instance)', reader, (i) => known[i % known.length]);
const mem = signatureStatusesPlugin({ upstreams: [{ url }] });
await mem.start({ log });
for (const s of known) await mem.lookup([s]);
await measure('hit in memory (reference)', mem, (i) => known[i % known.length]);
await Promise.all([plain.stop(), shared.stop(), reader.stop(), mem.stop()]);
upstream.close();
redisProc.kill('SIGKILL');
