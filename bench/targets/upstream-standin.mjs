// A loopback stand-in for a Solana node, answering like validator A does in
// the peers folder's captures (member order jsonrpc, result, id; keys sorted; trailing
// newline): every signature is finalized, except the ones posted to `/pending` (a JSON
// array), which are unknown (null) until posted to `/learn`, so signatureSubscribe can
// wait and then be notified. `GET /hits` tells how many getSignatureStatuses calls
// reached it, so the bench can prove a "memory" or "SQLite" row never went upstream,
// and count the requests of a poll round. `--unknown all`: every signature is unknown (null).
import http from 'node:http';
import { serve, targetArgs } from './lib/serve.mjs';

const STATUS =
  '{"confirmationStatus":"finalized","confirmations":null,"err":null,"slot":212,"status":{"Ok":null}}';
const started = Date.now();
let hits = 0;
const pending = new Set();
const allUnknown = targetArgs().unknown === 'all';

const slot = () => 300 + Math.floor((Date.now() - started) / 50); // 50 ms slots, like the validator

function answer(call) {
  const id = JSON.stringify(call?.id ?? null);
  switch (call?.method) {
    case 'getSignatureStatuses': {
      hits++;
      const sigs = Array.isArray(call.params?.[0]) ? call.params[0] : [];
      if (sigs.length > 256) {
        return `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Too many inputs provided; max 256"},"id":${id}}`;
      }
      const value = sigs
        .map((s) => (allUnknown || (pending.size && pending.has(s)) ? 'null' : STATUS))
        .join(',');
      return `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.1","slot":${slot()}},"value":[${value}]},"id":${id}}`;
    }
    case 'getHealth':
      return `{"jsonrpc":"2.0","result":"ok","id":${id}}`;
    case 'getSlot':
      return `{"jsonrpc":"2.0","result":${slot()},"id":${id}}`;
    case 'getVersion':
      return `{"jsonrpc":"2.0","result":{"feature-set":3294202862,"solana-core":"0.1.7"},"id":${id}}`;
    default:
      return `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":${id}}`;
  }
}

/** `/pending` adds the posted signatures to the unknown ones, `/learn` makes them finalized. */
function listed(url, chunks, res) {
  let sigs;
  try {
    sigs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (url === '/pending') for (const s of sigs) pending.add(s);
  else for (const s of sigs) pending.delete(s);
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`${sigs.length} ${pending.size}`);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    const text = req.url === '/hits' ? String(hits) : 'ok';
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/pending' || req.url === '/learn') return listed(req.url, chunks, res);
    let body;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      body = Array.isArray(parsed) ? `[${parsed.map(answer).join(',')}]` : answer(parsed);
    } catch {
      body = '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}';
    }
    body += '\n';
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
await serve(server, { name: 'upstream stand-in (validator-like)' });
