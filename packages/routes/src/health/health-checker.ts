import { JsonRpcClient, type AddressGuard } from '@rollup-router/core';
import type { RoutesPluginOptionsResolved } from '../generated/schemas.js';
import { probe, type ProbeOutcome } from './probe.js';

/** The `health` options after validation, every default filled in from the schema. */
export type HealthSettings = Readonly<NonNullable<RoutesPluginOptionsResolved['health']>>;

export type ProbeSink = (identity: string, fqdn: string, outcome: ProbeOutcome) => void;

/**
 * One node's probe loop. The next probe is scheduled only when the previous one has
 * finished, so there is never more than one in flight per node, whatever its latency.
 */
class ProbeLoop {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly identity: string,
    private readonly fqdn: string,
    private readonly addressGuard: AddressGuard | undefined,
    private readonly settings: HealthSettings,
    private readonly client: JsonRpcClient,
    private readonly sink: ProbeSink,
  ) {}

  /** Probes now; resolves when this first probe has been reported. */
  start(): Promise<void> {
    this.run();
    return this.current;
  }

  private run(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.current = probe({
      url: this.fqdn,
      method: this.settings.method,
      timeoutMs: this.settings.timeoutMs,
      client: this.client,
      addressGuard: this.addressGuard,
      signal: this.controller.signal,
    }).then((outcome) => {
      if (this.stopped) return;
      this.sink(this.identity, this.fqdn, outcome);
      this.timer = setTimeout(() => this.run(), this.settings.intervalMs);
    });
  }

  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.controller.abort();
    return this.current;
  }
}

/** Probes every tracked node on its own loop, over one shared keep-alive connection pool. */
export class HealthChecker {
  // A health reply is a few dozen bytes; a node that streams more is not answering the probe.
  private readonly client = new JsonRpcClient({ keepAliveTimeoutMs: 60_000, maxReplyBytes: 64 * 1024 });
  private readonly loops = new Map<string, ProbeLoop>();

  constructor(
    readonly settings: HealthSettings,
    private readonly sink: ProbeSink,
  ) {}

  /**
   * Starts probing a node, through `addressGuard` if given (a chain node's); resolves
   * after its first probe has been reported.
   */
  track(identity: string, fqdn: string, addressGuard?: AddressGuard): Promise<void> {
    void this.untrack(identity);
    const loop = new ProbeLoop(identity, fqdn, addressGuard, this.settings, this.client, this.sink);
    this.loops.set(identity, loop);
    return loop.start();
  }

  untrack(identity: string): Promise<void> {
    const loop = this.loops.get(identity);
    if (!loop) return Promise.resolve();
    this.loops.delete(identity);
    return loop.stop();
  }

  /** Stops every loop, waits for probes under way to settle, and closes the connections. */
  async stop(): Promise<void> {
    const stopping = [...this.loops.values()].map((loop) => loop.stop());
    this.loops.clear();
    await Promise.all(stopping);
    await this.client.close();
  }
}
