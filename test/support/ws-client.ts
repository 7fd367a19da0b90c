import WebSocket from 'ws';

/** A JSON-RPC message as a socket receives it (an answer or a notification). */
export interface Frame {
  readonly jsonrpc: string;
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  readonly method?: string;
  readonly params?: { readonly result: unknown; readonly subscription: number };
}

/** A real `ws` client that queues what it receives, for tests that read the wire. */
export class TestSocket {
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  /** Resolves with the close code and reason once the socket is closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly queue: string[] = [];
  private waiters: ((text: string) => void)[] = [];

  constructor(url: string, options: WebSocket.ClientOptions = {}) {
    this.ws = new WebSocket(url, options);
    this.ws.on('error', () => undefined);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    this.ws.on('message', (data) => {
      const text = (data as Buffer).toString('utf8');
      const waiter = this.waiters.shift();
      if (waiter) waiter(text);
      else this.queue.push(text);
    });
  }

  static async open(url: string, options?: WebSocket.ClientOptions): Promise<TestSocket> {
    const socket = new TestSocket(url, options);
    await socket.opened;
    return socket;
  }

  send(text: string | Buffer, binary = false): void {
    this.ws.send(text, { binary });
  }

  /** The next message received, parsed; rejects after `ms`. */
  async next(ms = 5000): Promise<Frame> {
    return JSON.parse(await this.nextText(ms)) as Frame;
  }

  nextText(ms = 5000): Promise<string> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no message within ${ms} ms`));
      }, ms);
      const waiter = (text: string): void => {
        clearTimeout(timer);
        resolve(text);
      };
      this.waiters.push(waiter);
    });
  }

  /** Sends one call and returns the next message (the answer, when nothing else is due). */
  async call(method: string, params?: unknown, id: number | string = 1): Promise<Frame> {
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return this.next();
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/** The status line of a refused upgrade, and its JSON-RPC body. */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    ws.once('error', () => undefined);
  });
}
