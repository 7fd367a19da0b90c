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
  /**
   * Reads the body as UTF-8, stopping (and not buffering) past `limit` bytes, or says
   * why there is no body text to parse (one of the symbols below).
   */
  readBody(limit: number): Promise<BodyText>;
  /** Calls `listener` if the client goes away before the reply is written (at once when it already has). */
  onClientGone(listener: () => void): void;
}

/** The body is over the limit: answered 413, the rest is read and discarded. */
export const BODY_TOO_LARGE = Symbol('body too large');
/** A host framework's body parser refused the body as over its own limit. */
export const HOST_BODY_TOO_LARGE = Symbol('body too large for the host parser');
/** A host framework's body parser found the body is not JSON. */
export const HOST_BODY_UNPARSABLE = Symbol('body unparsable by the host parser');
/** Someone else read the stream and left nothing usable (no parsed body, no text). */
export const BODY_CONSUMED = Symbol('body consumed by the host');
/** The client went away before its body was complete. */
export const CLIENT_GONE = Symbol('client gone');

export type BodyText =
  | string
  | typeof BODY_TOO_LARGE
  | typeof HOST_BODY_TOO_LARGE
  | typeof HOST_BODY_UNPARSABLE
  | typeof BODY_CONSUMED
  | typeof CLIENT_GONE;

export interface HttpReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Undefined for 204. */
  readonly body: string | undefined;
  /**
   * The request body was not read to its end: after the reply, keep reading and
   * discarding for a bounded time and size before closing (RFC 9112 section 9.6), so the
   * client's unsent bytes do not meet a closed socket whose reset destroys the reply.
   */
  readonly lingerBeforeClose?: boolean;
}
