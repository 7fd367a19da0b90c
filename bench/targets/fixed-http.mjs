// Baseline (a): bare node:http reading the body and answering fixed bytes, the ceiling
// of Node's HTTP stack on this machine (like the peers folder's scripts/fixed-server.mjs).
import http from 'node:http';
import { serve, targetArgs } from './lib/serve.mjs';
import { TRIVIAL_RESPONSE } from './lib/trivial.mjs';

const body = Buffer.from(targetArgs().body ?? TRIVIAL_RESPONSE);
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
await serve(server, { name: 'node:http fixed bytes' });
