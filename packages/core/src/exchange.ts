/**
 * What the core needs from a transport for one HTTP request. node:http and Express
 * both implement it over IncomingMessage; another transport (a fetch handler, a
 * serverless event) implements the same few members and gets every behaviour.
 */
export interface HttpExchange {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The path below the mount point, starting with `/` and without the query. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** A request header by lower-case name (first value when repeated). */
  header(name: string): string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly remoteAddress: string | undefined;
  /** A body a host framework already parsed (e.g. express.json()); undefined when the body is unread. */
  readonly parsedBody: unknown;
  /** Reads the body as UTF-8, stopping (and not buffering) past `limit` bytes. */
  readBody(limit: number): Promise<string | typeof BODY_TOO_LARGE>;
  /** Calls `listener` if the client goes away before the reply is written. */
  onClientGone(listener: () => void): void;
}

export const BODY_TOO_LARGE = Symbol('body too large');

export interface HttpReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Undefined for 204. */
  readonly body: string | undefined;
}
