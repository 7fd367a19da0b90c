// Baseline (p): the least a router written on Node can do: bare node:http reading the body
// and sending it, as it is, to one upstream with undici (a keep-alive Pool), then writing
// the upstream's status and body back. No parse, no decode, no log: Node's ceiling for a
// forwarding hop on this machine, to read the delegation router's added latency against.
//   --upstream URL  where every request goes (validator A in the bench).
import http from 'node:http';
import { Pool } from 'undici';
import { absent, serve, targetArgs } from './lib/serve.mjs';

const args = targetArgs();
if (typeof args.upstream !== 'string') absent('--upstream URL is required');
const upstream = new URL(args.upstream);
const pool = new Pool(upstream.origin, { connections: 8 });
const path = upstream.pathname || '/';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    pool
      .request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      .then(async ({ statusCode, body }) => {
        const bytes = Buffer.from(await body.arrayBuffer());
        res.writeHead(statusCode, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': bytes.length,
        });
        res.end(bytes);
      })
      .catch((err) => {
        res.writeHead(502).end(String(err));
      });
  });
});

await serve(server, { name: 'node:http + undici forwarding', onClose: () => pool.close() });
