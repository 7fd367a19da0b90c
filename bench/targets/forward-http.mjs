// Baseline (p): the least a router written on Node can do: bare node:http reading the body
// and sending it, as it is, to one upstream with undici (a keep-alive Pool), then writing
// the upstream's status and body back. No parse, no decode, no log: Node's ceiling for a
// forwarding hop on this machine, to read the delegation router's added latency against.
//   --upstream URL    where every request goes (validator A in the bench).
//   --as-server       the floor of a forwarding router in production settings: the reference
//                     server's head (naming the upstream as it does), the request and the reply
//                     parsed once each (for the call's method and outcome), and its call line
//                     after the answer (server-head.mjs). Nothing checked, routed or counted.
import http from 'node:http';
import { Pool } from 'undici';
import { absent, serve, targetArgs } from './lib/serve.mjs';
import { JSON_TYPE, openCallLog, requestId, serverHead } from './lib/server-head.mjs';

const args = targetArgs();
if (typeof args.upstream !== 'string') absent('--upstream URL is required');
const upstream = new URL(args.upstream);
const pool = new Pool(upstream.origin, { connections: 8 });
const path = upstream.pathname || '/';
const asServer = args['as-server'] === 'true';
const head = asServer ? await serverHead() : undefined;
const { callLog, logFile } = asServer ? await openCallLog() : {};
/** The label the reference server gives its base chain. */
const UPSTREAM = 'base-chain';

const send = (body) =>
  pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body });

function bare(body, res) {
  send(body)
    .then(async ({ statusCode, body }) => {
      const bytes = Buffer.from(await body.arrayBuffer());
      res.writeHead(statusCode, { 'content-type': JSON_TYPE, 'content-length': bytes.length });
      res.end(bytes);
    })
    .catch((err) => res.writeHead(502).end(String(err)));
}

function likeServer(body, res) {
  const started = performance.now();
  const reqId = requestId();
  const { method } = JSON.parse(body);
  send(body)
    .then(async ({ statusCode, body }) => {
      const text = await body.text();
      const code = JSON.parse(text).error?.code ?? 0;
      res.writeHead(statusCode, head(reqId, Buffer.byteLength(text), UPSTREAM));
      res.end(text);
      const ms = Math.round((performance.now() - started) * 1000) / 1000;
      setImmediate(() => callLog.info({ reqId, method, ms, code, upstream: UPSTREAM }, 'call'));
    })
    .catch((err) => res.writeHead(502).end(String(err)));
}

const forward = asServer ? likeServer : bare;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => forward(Buffer.concat(chunks), res));
});

await serve(server, {
  name: 'node:http + undici forwarding',
  notes: asServer ? ["the reference server's head, both bodies parsed, one pino call line per request"] : [],
  logFile,
  onClose: () => pool.close(),
});
