import type { PluginContext, RpcError } from '@rollup-router/core';
import type { Affinity } from '../affinity.js';
import type { UpstreamCallOutcome } from '../options.js';
import { isMoreAdvanced, normalizedStatus, type SignatureStatus } from '../status.js';
import { callUpstream, type UpstreamTarget } from './call-upstream.js';
import { failureError, type UpstreamFailure } from './failure.js';
import type { UpstreamPools } from './pools.js';
import { redactUrl } from './redact-url.js';

type Logger = PluginContext['log'];

export interface UpstreamContext {
  readonly apiVersion: string;
  readonly slot: number;
}

/** What the upstreams said about a set of signatures. */
export interface UpstreamAnswer {
  /** A status, or null, for each signature at least one upstream answered for. */
  readonly statuses: ReadonlyMap<string, SignatureStatus | null>;
  /** The context of the answer with the highest slot; undefined when none came. */
  readonly context: UpstreamContext | undefined;
  /** Why the signatures missing from `statuses` got no answer. */
  readonly error: RpcError | undefined;
}

export interface ResolverDeps {
  readonly pools: UpstreamPools;
  readonly affinity: Affinity;
  /** The upstreams to fan out to, as of now (configured ones and extra ones). */
  readonly targets: () => Promise<readonly UpstreamTarget[]>;
  /** The timeout for an upstream that is not a target (a tracked one). */
  readonly defaultTimeoutMs: number;
  readonly report: (url: string, outcome: UpstreamCallOutcome, ms: number) => void;
  readonly log: () => Logger;
}

/**
 * Settles signatures that memory and the store do not know: tracked ones are asked of
 * the upstream they were sent to first; every one still unknown is then asked of every
 * upstream at once (each only for what it has not already answered). Per signature, the
 * most advanced status wins.
 */
export class UpstreamResolver {
  constructor(private readonly deps: ResolverDeps) {}

  async resolve(
    signatures: readonly string[],
    history: boolean,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const targets = await this.deps.targets();
    const run = new Run(this.deps, history, signal);

    const byTracked = new Map<string, string[]>();
    for (const signature of signatures) {
      const url = this.deps.affinity.upstreamOf(signature);
      if (url !== undefined) (byTracked.get(url) ?? byTracked.set(url, []).get(url)!).push(signature);
    }
    const timeoutOf = (url: string) =>
      targets.find((t) => t.url === url)?.timeoutMs ?? this.deps.defaultTimeoutMs;
    await Promise.all([...byTracked].map(([url, sigs]) => run.ask({ url, timeoutMs: timeoutOf(url) }, sigs)));

    const unknown = signatures.filter((s) => !run.statuses.get(s));
    if (unknown.length > 0) {
      await Promise.all(
        targets.map((target) => {
          const sigs = unknown.filter((s) => !run.answeredBy(target.url, s));
          return sigs.length > 0 ? run.ask(target, sigs) : undefined;
        }),
      );
    }

    const unanswered = signatures.some((s) => !run.statuses.has(s));
    return {
      statuses: run.statuses,
      context: run.context,
      error: unanswered ? failureError(run.failures) : undefined,
    };
  }
}

/** The state of one resolve(): who answered what. */
class Run {
  readonly statuses = new Map<string, SignatureStatus | null>();
  readonly failures: UpstreamFailure[] = [];
  context: UpstreamContext | undefined;
  private readonly answered = new Map<string, Set<string>>();

  constructor(
    private readonly deps: ResolverDeps,
    private readonly history: boolean,
    private readonly signal: AbortSignal,
  ) {}

  answeredBy(url: string, signature: string): boolean {
    return this.answered.get(url)?.has(signature) ?? false;
  }

  async ask(target: UpstreamTarget, signatures: readonly string[]): Promise<void> {
    const started = performance.now();
    const outcome = await callUpstream(this.deps.pools, target, signatures, this.history, this.signal);
    const url = redactUrl(target.url);
    this.deps.report(url, outcome.kind, performance.now() - started);
    if (outcome.kind !== 'ok') {
      const failure: UpstreamFailure =
        outcome.kind === 'rpc_error'
          ? {
              url,
              cause: 'rpc_error',
              detail: `${outcome.error.code} ${outcome.error.message}`,
              error: outcome.error,
            }
          : { url, cause: outcome.kind, detail: outcome.detail };
      this.failures.push(failure);
      if (outcome.kind !== 'aborted')
        this.deps
          .log()
          .warn({ upstream: url, cause: failure.cause, detail: failure.detail }, 'upstream skipped');
      return;
    }
    const { context, value } = outcome.result;
    const answered =
      this.answered.get(target.url) ?? this.answered.set(target.url, new Set()).get(target.url)!;
    value.forEach((status, i) => {
      const signature = signatures[i]!;
      answered.add(signature);
      const previous = this.statuses.get(signature);
      if (status === null) {
        if (previous === undefined) this.statuses.set(signature, null);
      } else if (!previous || isMoreAdvanced(status, previous)) {
        this.statuses.set(signature, normalizedStatus(status));
      }
    });
    if (!this.context || context.slot > this.context.slot) {
      this.context = { apiVersion: context.apiVersion, slot: context.slot };
    }
  }
}
