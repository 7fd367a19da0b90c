import type { RequestListener } from 'node:http';

/**
 * Counts requests being answered, so a shutdown can wait for exactly those, and reports
 * each response's status (metrics) once it is written.
 */
export class RequestTracker {
  private count = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly onResponse: (status: number) => void = () => undefined) {}

  get inflight(): number {
    return this.count;
  }

  wrap(listener: RequestListener): RequestListener {
    return (req, res) => {
      this.count += 1;
      // 'close' fires for finished and for abandoned responses alike: one listener serves
      // both, and a response counts once it was ended (handed whole to the socket).
      res.once('close', () => {
        if (res.writableEnded) this.onResponse(res.statusCode);
        this.count -= 1;
        if (this.count === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
      });
      listener(req, res);
    };
  }

  /** Resolves once no request is being answered. */
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((wake) => this.idleWaiters.push(wake));
  }
}
