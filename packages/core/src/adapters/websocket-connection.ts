import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { KeyAccount } from '../api-keys.js';
import type { Rpc } from '../rpc.js';
import type { SubscriptionSession } from '../subscriptions/session.js';

export interface ConnectionLimits {
  readonly maxBufferedBytes: number;
  readonly maxInFlightPerConnection: number;
}

/** Close codes (RFC 6455 7.4.1). */
export const CloseCode = { GOING_AWAY: 1001, POLICY: 1008, TRY_AGAIN_LATER: 1013 } as const;

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** A closing peer that does not finish the closing handshake is cut off after this. */
const CLOSE_TIMEOUT_MS = 2000;

/**
 * One client's socket: every message goes through `rpc.dispatch` (the same pipeline as
 * HTTP), answers and notifications go out through one bounded send, and closing it
 * ends its subscriptions and aborts its calls.
 */
export class SocketConnection<C = unknown> {
  /** False from a ping until the peer shows life (pong or any message). */
  alive = true;
  private inFlight = 0;
  private paused = false;
  private seq = 0;
  private readonly gone = new AbortController();
  private readonly session: SubscriptionSession;
  private readonly origin: { remoteAddress: string | undefined; headers: IncomingMessage['headers'] };
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly ws: WebSocket,
    req: IncomingMessage,
    readonly clientKey: string,
    private readonly id: string,
    private readonly rpc: Rpc<C>,
    private readonly limits: ConnectionLimits,
    private readonly log: Logger,
    /** The host's context of the connection, made from its upgrade request. */
    private readonly host: C,
    /** The API key the connection was admitted with: one with a budget of its own pays for its messages. */
    private readonly apiKey: KeyAccount | undefined,
  ) {
    this.origin = { remoteAddress: req.socket.remoteAddress, headers: req.headers };
    this.session = rpc.subscriptions.session(
      {
        send: (text) => this.send(text),
        sendShared: (head, tail) => this.sendShared(head, tail),
        close: (code, reason) => this.close(code, reason),
      },
      log,
      clientKey,
    );
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('pong', () => (this.alive = true));
    // ws closes the socket itself after a protocol error (1009 too big, 1007 invalid UTF-8).
    ws.on('error', (err) => log.debug({ err, conn: id }, 'websocket protocol error'));
  }

  /** Frees everything the connection held; called once, on 'close'. */
  closed(code: number): void {
    this.gone.abort(new Error('socket closed'));
    const subscriptions = this.session.size;
    this.session.closeAll();
    this.log.debug({ conn: this.id, code, subscriptions }, 'websocket closed');
  }

  /** Resolves once no call of this socket is being answered. */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((wake) => this.idleWaiters.push(wake));
  }

  /** Sends one message, unless the peer is too slow to read what it was already sent. */
  send(text: string): void {
    if (this.canSend(text.length)) this.ws.send(text);
  }

  /**
   * Sends one text message made of `head` then `tail`, as two fragments: `head` (a
   * notification's bytes, shared by all its subscribers) goes to the socket as it is,
   * never copied per subscriber. Nothing else is sent between the two.
   */
  sendShared(head: Buffer, tail: string): void {
    if (!this.canSend(head.length + tail.length)) return;
    this.ws.send(head, { binary: false, fin: false });
    this.ws.send(tail, { binary: false, fin: true });
  }

  /** Whether the socket is open and its peer reads fast enough for `bytes` more; a slow one is closed. */
  private canSend(bytes: number): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    if (this.ws.bufferedAmount + bytes <= this.limits.maxBufferedBytes) return true;
    this.log.warn(
      { conn: this.id, client: this.clientKey, bufferedBytes: this.ws.bufferedAmount },
      `closing a slow consumer: over ${this.limits.maxBufferedBytes} bytes buffered`,
    );
    this.close(CloseCode.POLICY, 'slow consumer: too many bytes buffered');
    return false;
  }

  /** Starts the closing handshake; a peer that does not complete it is cut off. */
  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), CLOSE_TIMEOUT_MS).unref();
  }

  private receive(data: RawData, isBinary: boolean): void {
    this.alive = true;
    const buffer = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    let text: string;
    try {
      // Text frames were checked by ws (invalid UTF-8 closes with 1007); binary ones are checked here.
      text = isBinary ? utf8.decode(buffer) : buffer.toString('utf8');
    } catch {
      text = '\u0000'; // not JSON: answered -32700 like any unparsable message
    }
    void this.run(text);
  }

  private async run(text: string): Promise<void> {
    this.inFlight += 1;
    if (this.inFlight >= this.limits.maxInFlightPerConnection && !this.paused) {
      this.paused = true;
      this.ws.pause();
    }
    const opened = this.session.message();
    try {
      const answer = await this.rpc.dispatch(text, {
        requestId: `${this.id}:${++this.seq}`,
        origin: this.origin,
        signal: this.gone.signal,
        session: opened,
        rateLimitKey: this.clientKey,
        apiKey: this.apiKey,
        context: this.host,
      });
      if (answer !== undefined) this.send(answer);
      opened.start();
    } finally {
      this.inFlight -= 1;
      if (this.paused && this.inFlight < this.limits.maxInFlightPerConnection) {
        this.paused = false;
        this.ws.resume();
      }
      if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
    }
  }
}
