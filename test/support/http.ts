import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@rollup-router/core';
import type { LevelWithSilent, Logger } from 'pino';

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

/** A JSON-RPC answer as a test reads it. */
export interface RpcReply {
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** One JSON-RPC call (id 1) posted to `url`, its answer parsed. */
export async function rpcCall(url: string, method: string, params?: unknown): Promise<RpcReply> {
  const { text } = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  return JSON.parse(text) as RpcReply;
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/**
 * A logger writing into memory, so a test reads what an operator would see. It is made by
 * the core's createLogger, so lines are redacted exactly as in production; `stream` lets a
 * test build its own logger (another level, say) on the same lines.
 */
export function memoryLog(level: LevelWithSilent = 'debug'): {
  stream: Writable;
  lines: LogLine[];
  log: Logger;
} {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { stream, lines, log: createLogger({ level, destination: stream }) };
}
