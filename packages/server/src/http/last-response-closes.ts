import type { RequestListener } from 'node:http';

/**
 * Once `close()` is called, every response ends its connection (`Connection: close`).
 * While a stopping server still answers calls (shutdown.drainDelayMs), a client or load
 * balancer that kept a connection open opens a new one for its next request, which its
 * balancer sends to an instance that is staying; so when the drain closes the idle
 * connections, none is left for a request to race into.
 */
export class LastResponseCloses {
  private closing = false;

  wrap(listener: RequestListener): RequestListener {
    return (req, res) => {
      // The JSON-RPC handler's writeHead merges this header into its own.
      if (this.closing) res.setHeader('connection', 'close');
      listener(req, res);
    };
  }

  close(): void {
    this.closing = true;
  }
}
