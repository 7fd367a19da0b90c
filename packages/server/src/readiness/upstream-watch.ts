import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcClient, redactUrl, type JsonRpcOutcome, type ProviderSet } from '@rollup-router/core';
import type { Logger } from 'pino';

export interface UpstreamWatchOptions {
  /** The configured upstream URLs (full: they may carry a key in the query, so never logged as is). */
  readonly urls: readonly string[];
  readonly freshMs: number;
  /** 0: never probe, rely on traffic. */
  readonly probeIntervalMs: number;
  readonly probeTimeoutMs: number;
}

/** Outcomes of a plugin upstream request that mean the upstream is up and speaking JSON-RPC. */
const ANSWERED = new Set(['ok', 'rpc_error']);

/** A getHealth reply is a few dozen bytes. */
const MAX_PROBE_REPLY_BYTES = 64 * 1024;

/**
 * Remembers when an upstream last answered, for GET /ready. Real calls are the main
 * evidence (the statuses plugin reports each one); when none happened for a while, the
 * watch asks the upstreams `getHealth` itself, so a quiet server still knows.
 */
export class UpstreamWatch {
  /** Each configured upstream's name, in the order of `urls`: redacted URLs until useNames. */
  private names: readonly string[];
  /** Each configured upstream's providers when it has several, in the order of `urls`: probed through them. */
  private providers: readonly (ProviderSet | undefined)[] = [];
  /** When each configured upstream last answered, by name (an extra upstream's answer is not evidence). */
  private readonly lastAnswers = new Map<string, number>();
  /** Each configured upstream's failed call or probe since its last answer, by name: what /ready shows of one that is down. */
  private readonly lastFailures = new Map<string, { readonly at: number; readonly outcome: string }>();
  private lastAnswer: { at: number; upstream: string } | undefined;
  private stopping: AbortController | undefined;
  private readonly client: JsonRpcClient;

  constructor(
    private readonly options: UpstreamWatchOptions,
    private readonly log: Logger,
  ) {
    this.names = options.urls.map((url) => redactUrl(url));
    this.client = new JsonRpcClient({
      connections: 1,
      maxPools: Math.max(1, options.urls.length),
      maxReplyBytes: MAX_PROBE_REPLY_BYTES,
    });
  }

  get configured(): boolean {
    return this.options.urls.length > 0;
  }

  /**
   * The names the statuses plugin gives its configured upstreams, in its order (the
   * config's, as `urls`): calls are recorded, probes labelled and /ready entries written
   * under them, so two upstreams on one origin are two entries. A URL of `urls` not at the
   * same place in `named` keeps its redacted URL. An upstream with `providers` is probed
   * through them, and a call reported as `<name>:<provider>` is evidence for it.
   */
  useNames(
    named: readonly { readonly url: string; readonly name: string; readonly providers?: ProviderSet }[],
  ): void {
    const at = (url: string, i: number) => (named[i]?.url === url ? named[i] : undefined);
    this.names = this.options.urls.map((url, i) => at(url, i)?.name ?? this.names[i]!);
    this.providers = this.options.urls.map((url, i) => at(url, i)?.providers);
  }

  /** The plugins' onUpstreamCall hook (the statuses plugin's, the delegation router's). */
  readonly record = (label: string, outcome: string): void => {
    const upstream = this.upstreamOf(label);
    // Aborted: the callers left, which says nothing of the upstream.
    if (outcome === 'aborted' || upstream === undefined) return;
    const at = Date.now();
    if (!ANSWERED.has(outcome)) {
      this.lastFailures.set(upstream, { at, outcome });
      return;
    }
    this.lastAnswers.set(upstream, at);
    this.lastFailures.delete(upstream);
    this.lastAnswer = { at, upstream };
  };

  /** The configured upstream a reported label is evidence for: its own, or that of one of its providers (`<name>:<provider>`). */
  private upstreamOf(label: string): string | undefined {
    if (this.names.includes(label)) return label;
    const colon = label.lastIndexOf(':');
    if (colon === -1) return undefined;
    const at = this.names.indexOf(label.slice(0, colon));
    return at !== -1 && this.providers[at] !== undefined ? this.names[at] : undefined;
  }

  /** Undefined when an upstream answered within the fresh window (or none is configured), else why not. */
  problem(now = Date.now()): string | undefined {
    if (!this.configured) return undefined;
    if (this.lastAnswer === undefined) return 'no upstream has answered yet';
    const age = now - this.lastAnswer.at;
    return age <= this.options.freshMs
      ? undefined
      : `no upstream answered in the last ${Math.round(this.options.freshMs / 1000)} s (last: ${this.lastAnswer.upstream}, ${Math.round(age / 1000)} s ago)`;
  }

  /**
   * One entry per configured upstream, `<name>: ...`, joined by `; `; a failure since its
   * last answer is added (`, last call unreachable 20 ms ago`), so a down upstream shows why.
   */
  describe(now = Date.now()): string {
    if (!this.configured) return 'none configured';
    return this.names
      .map((name) => {
        const at = this.lastAnswers.get(name);
        const failed = this.lastFailures.get(name);
        const entry =
          at === undefined ? `${name}: none answered yet` : `${name}: answered ${now - at} ms ago`;
        return failed === undefined
          ? entry
          : `${entry}, last call ${failed.outcome} ${now - failed.at} ms ago`;
      })
      .join('; ');
  }

  start(): void {
    if (!this.configured || this.options.probeIntervalMs === 0 || this.stopping !== undefined) return;
    this.stopping = new AbortController();
    void this.loop(this.stopping.signal);
  }

  stop(): void {
    this.stopping?.abort();
    void this.client.close();
  }

  private async loop(stopped: AbortSignal): Promise<void> {
    const interval = this.options.probeIntervalMs;
    while (!stopped.aborted) {
      if (this.lastAnswer === undefined || Date.now() - this.lastAnswer.at >= interval)
        await this.probeAll(stopped);
      // Unreferenced: a pending probe timer never keeps the process alive.
      await sleep(interval, undefined, { signal: stopped, ref: false }).catch(() => undefined);
    }
  }

  private async probeAll(stopped: AbortSignal): Promise<void> {
    await Promise.all(
      this.options.urls.map((url, i) => this.probe(url, this.providers[i], this.names[i]!, stopped)),
    );
  }

  private async probe(
    url: string,
    providers: ProviderSet | undefined,
    label: string,
    stopped: AbortSignal,
  ): Promise<void> {
    const call = { method: 'getHealth', id: 1, timeoutMs: this.options.probeTimeoutMs, signal: stopped };
    const outcome: JsonRpcOutcome = await (providers
      ? providers.call({ ...call, maxReplyBytes: MAX_PROBE_REPLY_BYTES })
      : this.client.call(url, call));
    // Any JSON-RPC reply, an error included ("node is behind"), proves the upstream is there.
    if (outcome.kind === 'reply') this.record(label, 'ok');
    else if (outcome.kind !== 'aborted') {
      this.record(label, outcome.kind === 'bad_reply' ? 'bad_response' : outcome.kind);
      this.log.warn(
        { upstream: label, cause: outcome.kind, detail: outcome.detail },
        'readiness probe failed',
      );
    }
  }
}
