import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  BODY_TOO_LARGE,
  CLIENT_GONE,
  type BodyText,
  type HttpExchange,
  type HttpReply,
} from '../exchange.js';
import { lingerThenClose } from './linger.js';

/** The exchange over node:http's request and response, which Express's extend. */
export function nodeExchange(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
  parsedBody: unknown,
  readBody?: (limit: number) => Promise<BodyText>,
): HttpExchange {
  return new NodeExchange(req, res, path, query, parsedBody, readBody);
}

/** A class, not an object literal of closures: one allocation per request, methods shared. */
class NodeExchange implements HttpExchange {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly remoteAddress: string | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly path: string,
    readonly query: string,
    readonly parsedBody: unknown,
    private readonly reader: ((limit: number) => Promise<BodyText>) | undefined,
  ) {
    this.method = req.method ?? 'GET';
    this.headers = req.headers;
    this.remoteAddress = req.socket.remoteAddress;
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  }

  readBody(limit: number): Promise<BodyText> {
    return this.reader ? this.reader(limit) : readRequestBody(this.req, limit);
  }

  onClientGone(listener: () => void): void {
    const res = this.res;
    const report = (): void => {
      if (!res.writableFinished) listener();
    };
    // Asked after the connection closed (a handler that looks late): it is gone already.
    // `on`: a response closes once, and once's wrapper costs more than the listener.
    if (res.destroyed) report();
    else res.on('close', report);
  }
}

export function readRequestBody(req: IncomingMessage, limit: number): Promise<BodyText> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // Keep reading only to discard: nothing past the limit is held in memory.
        req.off('data', onData);
        req.resume();
        resolve(BODY_TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    // `on`, not `once`: each fires at most once per request, and the request is dropped
    // after; once's wrapper and its removal cost more than the listener (--cpu-prof).
    req.on('data', onData);
    req.on('end', () => {
      resolve(
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'),
      );
    });
    // A client that aborts mid-body ends the stream with an error or a bare close: either
    // way it is gone, which is not the server's failure. (A settled promise ignores both.)
    req.on('error', () => resolve(CLIENT_GONE));
    req.on('close', () => resolve(CLIENT_GONE));
  });
}

/**
 * Headers a host adds to every reply (security headers, say), as name-value pairs made
 * once, so that each reply is written with one `writeHead` of one flat array: no
 * `setHeader` per header, and no merge of Node's progressive headers with the reply's.
 */
export type FixedHeaders = readonly (readonly [name: string, value: string])[];

export function fixedHeaders(headers: Readonly<Record<string, string>> | undefined): FixedHeaders {
  return Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value] as const);
}

/**
 * Writes the reply's head in one call. With fixed headers, one flat array: the fixed
 * first, then the reply's own, which win a clash. Without, the reply's object, merged by
 * Node with whatever a host set before (Express middleware), positions kept.
 */
export function writeReply(res: ServerResponse, reply: HttpReply, fixed: FixedHeaders = []): void {
  if (res.headersSent || res.destroyed) return;
  const own = reply.headers;
  if (reply.lingerBeforeClose === true || closesOnUnreadBody(res, own)) lingerThenClose(res);
  if (reply.body !== undefined) own['content-length'] = String(Buffer.byteLength(reply.body));
  if (fixed.length === 0) res.writeHead(reply.status, own);
  else res.writeHead(reply.status, headPairs(own, fixed));
  res.end(reply.body);
}

/**
 * A reply as raw HTTP/1.1 text, for a socket no ServerResponse writes to (a refused
 * WebSocket upgrade): the head writeReply would write, then the body. The caller ends the
 * socket after it, so it says Connection: close.
 */
export function rawReply(reply: HttpReply, fixed: FixedHeaders): string {
  const body = reply.body ?? '';
  const own = { ...reply.headers, connection: 'close', 'content-length': String(Buffer.byteLength(body)) };
  const pairs = headPairs(own, fixed);
  let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}\r\n`;
  for (let i = 0; i < pairs.length; i += 2) head += `${pairs[i]}: ${pairs[i + 1]}\r\n`;
  return `${head}\r\n${body}`;
}

/** The fixed headers, then the reply's own, which win a clash: one flat array of names and values. */
function headPairs(own: Record<string, string>, fixed: FixedHeaders): string[] {
  const head: string[] = [];
  for (const [name, value] of fixed) if (own[name] === undefined) head.push(name, value);
  for (const name in own) head.push(name, own[name]!);
  return head;
}

/**
 * A reply that ends the connection (the client asked, HTTP/1.0, or ours says so) while the
 * request's body is still arriving: a refusal decided by the method or headers alone (405,
 * 401, 429, a shutdown's 503) is sent before the body is read. Closed at once, the client's
 * bytes still in flight would reset the connection and destroy the reply unread (EPIPE).
 */
function closesOnUnreadBody(res: ServerResponse, own: Record<string, string>): boolean {
  return !res.req.complete && (!res.shouldKeepAlive || own['connection'] === 'close');
}

export function splitUrl(url: string | undefined): { path: string; query: string } {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, query: '' } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}
