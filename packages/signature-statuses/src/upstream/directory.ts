import { redactUrl } from '@rollup-router/core';
import type { StatusEvents } from '../events.js';
import type { ResolvedOptions, SignatureStatusesHooks } from '../options.js';
import { Affinity, type AffinityStore } from './affinity.js';

export interface UpstreamTarget {
  readonly url: string;
  /** The URL as logs, metrics and error data show it (core's redactUrl), made once per target. */
  readonly name: string;
  readonly timeoutMs: number;
}

const target = (url: string, timeoutMs: number): UpstreamTarget => ({ url, name: redactUrl(url), timeoutMs });

/** Which upstreams to ask, in which order, for a set of signatures. */
export interface UpstreamPlan {
  /** First: the positions of the tracked signatures, grouped by the upstream each was sent to. */
  readonly tracked: readonly (readonly [UpstreamTarget, number[]])[];
  /** Then, for whatever is still unknown: every upstream as of now, configured then extra. */
  readonly all: readonly UpstreamTarget[];
}

/**
 * Knows the upstreams: the configured ones, the extra ones asked at lookup time (route
 * nodes), and which upstream each tracked transaction was sent to, since that node knows
 * its status first.
 */
export class UpstreamDirectory {
  private readonly configured: readonly UpstreamTarget[];
  private readonly affinity: AffinityStore;
  private readonly timeoutMs: number;

  constructor(
    options: Pick<ResolvedOptions, 'upstreams' | 'upstreamTimeoutMs' | 'maxTracked'>,
    private readonly extraUpstreams: SignatureStatusesHooks['extraUpstreams'],
    private readonly events: StatusEvents,
    /** Where tracks are kept: this process's memory by default, Redis to share them. */
    affinity?: AffinityStore,
  ) {
    this.timeoutMs = options.upstreamTimeoutMs;
    this.configured = options.upstreams.map((u) => target(u.url, u.timeoutMs ?? this.timeoutMs));
    this.affinity = affinity ?? new Affinity(options.maxTracked);
  }

  /** The configured upstreams as logs show them. */
  get configuredNames(): string[] {
    return this.configured.map((t) => t.name);
  }

  /** Remembers that the transaction with `signature` was sent to `upstreamUrl`. */
  track(signature: string, upstreamUrl: string): void {
    this.affinity.track(signature, upstreamUrl);
  }

  async plan(signatures: readonly string[]): Promise<UpstreamPlan> {
    const [all, tracked] = await Promise.all([this.everyUpstream(), this.affinity.upstreamsOf(signatures)]);
    const byUrl = new Map<string, number[]>();
    // Fresh signatures are tracked nowhere: no walk over them.
    if (tracked.size > 0) {
      signatures.forEach((signature, i) => {
        const url = tracked.get(signature);
        if (url !== undefined) (byUrl.get(url) ?? byUrl.set(url, []).get(url)!).push(i);
      });
    }
    const targetOf = (url: string): UpstreamTarget =>
      all.find((t) => t.url === url) ?? target(url, this.timeoutMs);
    return { tracked: [...byUrl].map(([url, at]) => [targetOf(url), at] as const), all };
  }

  /** The configured upstreams, then the extra ones not already among them (extra ones use upstreamTimeoutMs). */
  private async everyUpstream(): Promise<readonly UpstreamTarget[]> {
    if (!this.extraUpstreams) return this.configured;
    let extra: readonly string[];
    try {
      extra = await this.extraUpstreams();
    } catch (err) {
      this.events.log.warn({ err }, 'extraUpstreams failed; asking the configured upstreams only');
      return this.configured;
    }
    const seen = new Set(this.configured.map((t) => normalized(t.url)));
    const all = [...this.configured];
    for (const url of extra) {
      const key = normalized(url);
      if (key === undefined) {
        this.events.log.warn({ upstream: redactUrl(url) }, 'extra upstream is not an http(s) URL; skipped');
      } else if (!seen.has(key)) {
        seen.add(key);
        all.push(target(url, this.timeoutMs));
      }
    }
    return all;
  }
}

function normalized(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
