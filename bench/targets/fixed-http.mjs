// Baseline (a): bare node:http reading the body and answering fixed bytes, the ceiling
// of Node's HTTP stack on this machine (like the peers folder's scripts/fixed-server.mjs).
//   --body TEXT       the answer (default: the trivial method's);
//   --headers server  the reference server's head instead of the bare two headers: its
//                     security headers, a fresh x-request-id, and the body as a string made
//                     per request (as our core writes it), so head and body cost what ours do;
//   --spin-us N       N µs of busy work per request before the answer: what one µs of work
//                     in a handler costs the process at this load, beyond the µs itself;
//   --log calls       one pino info line per request, the reference server's call line, written
//                     as it writes it (core's createLogger and logDestination, to a file, after
//                     the answer): what the standard's "one line per call" costs by itself.
import http from 'node:http';
import { absent, serve, targetArgs } from './lib/serve.mjs';
import { JSON_TYPE, openCallLog, requestId, serverHead } from './lib/server-head.mjs';
import { TRIVIAL_RESPONSE } from './lib/trivial.mjs';

const args = targetArgs();
const text = args.body ?? TRIVIAL_RESPONSE;
const body = Buffer.from(text);
const spinMs = Number(args['spin-us'] ?? 0) / 1000;
if (
  !(spinMs >= 0) ||
  (args.headers !== undefined && args.headers !== 'server') ||
  (args.log !== undefined && args.log !== 'calls')
)
  absent(`--spin-us takes µs >= 0, --headers only "server" and --log only "calls"`);

// The answer's text split where the id goes, so each request builds its own string.
const idAt = text.lastIndexOf(',"id":');
const [before, after] = [text.slice(0, idAt + ',"id":'.length), text.slice(idAt + ',"id":'.length)];
const head = args.headers === 'server' ? await serverHead() : undefined;
const { callLog, logFile } = args.log === 'calls' ? await openCallLog() : {};

function spin() {
  const until = performance.now() + spinMs;
  while (performance.now() < until);
}

const answer = head
  ? (res, reqId) => {
      const reply = before + after;
      res.writeHead(200, head(reqId, Buffer.byteLength(reply)));
      res.end(reply);
    }
  : (res) => {
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': body.length });
      res.end(body);
    };

const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const started = performance.now();
    const reqId = head || callLog ? requestId() : '';
    if (spinMs > 0) spin();
    answer(res, reqId);
    const ms = Math.round((performance.now() - started) * 1000) / 1000;
    callLog?.info({ reqId, method: 'getRoutes', ms, code: 0 }, 'call');
  });
});
await serve(server, {
  name: 'node:http fixed bytes',
  notes: [
    args.headers && "the reference server's headers",
    spinMs > 0 && `${args['spin-us']} µs of work per request`,
    callLog && 'one pino call line per request',
  ].filter(Boolean),
  logFile,
});
