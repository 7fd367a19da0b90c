import type { RequestListener } from 'node:http';

/**
 * Counts requests being answered, so a shutdown can wait for exactly those, and reports
 * each response's status (metrics) once it is written.
 */
export class RequestTracker {
  private count = 0;
  private idleWaiters: (() => void)[] = [];
  private closingConnections = false;

  constructor(private readonly onResponse: (status: number) => void = () => undefined) {}

  get inflight(): number {
    return this.count;
  }

  wrap(listener: RequestListener): RequestListener {
    return (req, res) => {
      this.count += 1;
      // 'close' fires for finished and for abandoned responses alike: one listener serves
      // both, and a response counts once it was ended (handed whole to the socket). `on`: it
      // closes once, and once's wrapper costs more than the listener.
      res.on('close', () => {
        if (res.writableEnded) this.onResponse(res.statusCode);
        this.count -= 1;
        if (this.count === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
      });
      // The JSON-RPC handler's writeHead merges this header into its own.
      if (this.closingConnections) res.setHeader('connection', 'close');
      listener(req, res);
    };
  }

  /**
   * From now on every response ends its connection (`Connection: close`). While a stopping
   * server still answers calls (shutdown.drainDelayMs), a client or load balancer that kept
   * a connection open opens a new one for its next request, which its balancer sends to an
   * instance that is staying; so when the drain closes the idle connections, none is left
   * for a request to race into.
   */
  closeConnectionsAfterResponses(): void {
    this.closingConnections = true;
  }

  /** Resolves once no request is being answered. */
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((wake) => this.idleWaiters.push(wake));
  }
}
