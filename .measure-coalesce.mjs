// Throwaway measurement: how many upstream requests two instances make for one unknown signature asked at once.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import bs58 from 'bs58';

const rport = 16402;
const redisProc = spawn('redis-server', ['--port', String(rport), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp/rtest'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 300));
let statusRequests = 0;
const upstream = http.createServer((req, res) => {
  let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => {
    const call = JSON.parse(b);
    if (call.method !== 'getSignatureStatuses') { res.end(JSON.stringify({ jsonrpc: '2.0', result: 'ok', id: call.id })); return; }
    statusRequests += 1;
    const value = call.params[0].map(() => ({ confirmationStatus: 'finalized', confirmations: null, err: null, slot: 7, status: { Ok: null } }));
    setTimeout(() => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ jsonrpc: '2.0', result: { context: { apiVersion: '2.2.1', slot: 9 }, value }, id: call.id })); }, 50);
  });
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const up = `http://127.0.0.1:${upstream.address().port}`;
const start = (name) => new Promise((resolve) => {
  const file = `/tmp/rtest/${name}.json`;
  writeFileSync(file, JSON.stringify({ port: 0, statuses: { store: false, upstreams: [{ url: up }] }, redis: { url: `redis://127.0.0.1:${rport}` }, readiness: { upstreamProbeIntervalMs: 0 } }));
  const child = spawn(process.execPath, ['packages/server/dist/cli.js', '--config', file, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (c) => { const m = /"port":(\d+).*listening/.exec(c.toString()); if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}/` }); });
});
const servers = [await start('c1'), await start('c2')];
const ask = (url, sig) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[sig]] }) }).then((r) => r.json());
let total = 0; const rounds = 20;
for (let i = 0; i < rounds; i++) {
  const sig = bs58.encode(randomBytes(64));
  const before = statusRequests;
  await Promise.all(Array.from({ length: 50 }, (_, k) => ask(servers[k % 2].url, sig)));
  total += statusRequests - before;
}
console.log(`50 concurrent callers of one unknown signature, spread over 2 instances: ${(total / rounds).toFixed(2)} upstream requests per signature (ideal with cross-instance coalescing: 1)`);
let later = 0;
for (let i = 0; i < rounds; i++) {
  const sig = bs58.encode(randomBytes(64));
  const before = statusRequests;
  await ask(servers[0].url, sig);
  await new Promise((r) => setTimeout(r, 5));
  await ask(servers[1].url, sig);
  later += statusRequests - before;
}
console.log(`the same signature asked of instance 1, then of instance 2: ${(later / rounds).toFixed(2)} upstream requests per signature`);
servers.forEach((s) => s.child.kill()); upstream.close(); redisProc.kill('SIGKILL');
