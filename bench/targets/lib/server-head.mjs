// What the reference server adds to every answer, for the baselines that measure its cost
// with none of our code between: its head (security headers, then a fresh request id) and its
// call line (core's logger on core's batching destination, to a temp file, with the server's
// default flush). Loaded only by a row that asks: the bare rows keep no module of ours in
// their process.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** `head(reqId, length, upstream)`: the server's header pairs for one answer, one flat array. */
export async function serverHead() {
  const { SECURITY_HEADERS } = await import('@rollup-router/server');
  const { UPSTREAM_HEADER } = await import('@rollup-router/core');
  const security = Object.entries(SECURITY_HEADERS).flat();
  const typed = (length) => ['content-type', JSON_TYPE, 'content-length', String(length)];
  return (reqId, length, upstream) =>
    security.concat('x-request-id', reqId, upstream ? [UPSTREAM_HEADER, upstream] : [], typed(length));
}

export const requestId = () => randomUUID();

/** The server's call line on its own destination: `{ callLog, logFile }`. */
export async function openCallLog() {
  const { createLogger, logDestination } = await import('@rollup-router/core');
  const logFile = join(mkdtempSync(join(tmpdir(), 'rollup-router-bench-')), 'calls.log');
  return { callLog: createLogger({ level: 'info', destination: logDestination(logFile, 100) }), logFile };
}
