import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

export interface Listening {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A real HTTP server on an ephemeral loopback port. */
export function listen(listener: RequestListener): Promise<Listening> {
  const server = http.createServer(listener);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** POSTs exact bytes and returns exact bytes: the wire is what is under test. */
export async function post(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'POST',
): Promise<RawResponse> {
  const res = await fetch(url, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

/** A pino destination that keeps every line, for asserting what was logged. */
export function memoryLog(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Polls until `check` holds, for conditions that become true in the background. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  tries = 200,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}
