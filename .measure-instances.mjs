// Throwaway measurement (not committed): one instance vs two instances + Redis under autocannon.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import bs58 from 'bs58';
import autocannon from 'autocannon';

const rport = 16401;
const redisProc = spawn('redis-server', ['--port', String(rport), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp/rtest'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 300));
const sigs = Array.from({ length: 4 }, () => bs58.encode(randomBytes(64)));
const upstream = http.createServer((req, res) => {
  let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => {
    const call = JSON.parse(b);
    if (call.method !== 'getSignatureStatuses') { res.end(JSON.stringify({ jsonrpc: '2.0', result: 'ok', id: call.id })); return; }
    const value = call.params[0].map(() => ({ confirmationStatus: 'finalized', confirmations: null, err: null, slot: 7, status: { Ok: null } }));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', result: { context: { apiVersion: '2.2.1', slot: 9 }, value }, id: call.id }));
  });
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const up = `http://127.0.0.1:${upstream.address().port}`;
const start = (name, redis) =>
  new Promise((resolve) => {
    const file = `/tmp/rtest/${name}.json`;
    writeFileSync(file, JSON.stringify({ port: 0, logLevel: 'warn', statuses: { store: false, upstreams: [{ url: up }] }, rateLimit: { points: 1e9, durationSeconds: 1 }, ...(redis ? { redis: { url: `redis://127.0.0.1:${rport}` } } : {}) }));
    const child = spawn(process.execPath, ['packages/server/dist/cli.js', '--config', file, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (c) => { const m = /"port":(\d+).*listening/.exec(c.toString()); if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}/` }); });
  });
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [sigs] });
const run = (url, connections) => autocannon({ url, connections, duration: 5, method: 'POST', headers: { 'content-type': 'application/json' }, body });
const show = (name, results) => {
  const rps = results.reduce((s, r) => s + r.requests.average, 0);
  const p50 = Math.max(...results.map((r) => r.latency.p50));
  const p99 = Math.max(...results.map((r) => r.latency.p99));
  const bad = results.reduce((s, r) => s + r.errors + r.timeouts + r.non2xx, 0);
  console.log(`${name.padEnd(40)} ${rps.toFixed(0).padStart(6)} req/s  p50 ${p50} ms  p99 ${p99} ms  lost ${bad}`);
};
const a = await start('one', false);
await run(a.url, 20);
show('one instance, no redis', [await run(a.url, 20)]);
a.child.kill();
const b = await start('oneR', true);
await run(b.url, 20);
show('one instance + redis', [await run(b.url, 20)]);
const c = await start('twoR', true);
await Promise.all([run(b.url, 10), run(c.url, 10)]);
show('two instances + redis (10+10 connections)', await Promise.all([run(b.url, 10), run(c.url, 10)]));
b.child.kill(); c.child.kill(); upstream.close(); redisProc.kill('SIGKILL');
