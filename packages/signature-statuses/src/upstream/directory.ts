import { redactUrl, type AddressGuard, type ProviderSet } from '@rollup-router/core';
import type { StatusEvents } from '../events.js';
import {
  providedUpstream,
  type ExtraUpstream,
  type ResolvedOptions,
  type SignatureStatusesHooks,
} from '../options.js';
import { Affinity, type AffinityStore } from './affinity.js';
import { upstreamNames } from './upstream-names.js';

export interface UpstreamTarget {
  readonly url: string;
  /**
   * What logs, metrics, error data and the affinity store call it: a configured upstream's
   * name (upstreamNames), an extra one's redacted URL. Never holds a path or query.
   */
  readonly name: string;
  /** What onUpstreamCall reports it as: its name, or the label an extra upstream was given. */
  readonly label: string;
  readonly timeoutMs: number;
  /**
   * Configured by the operator. An extra upstream (a route node: anyone can register one in
   * the on-chain registry) may answer a call, but what it says is never kept, never
   * tracked, and never overrides what a configured upstream said.
   */
  readonly trusted: boolean;
  /** What each connection to it goes through: an extra upstream's guard, if it came with one. */
  readonly addressGuard?: AddressGuard;
  /** A configured upstream served by several providers: its calls go through them, not to `url`. */
  readonly providers?: ProviderSet;
}

/** Which upstreams to ask, in which order, for a set of signatures. */
export interface UpstreamPlan {
  /** First: the positions of the tracked signatures, grouped by the configured upstream each was sent to. */
  readonly tracked: readonly (readonly [UpstreamTarget, number[]])[];
  /** Then, for whatever is still unknown: every upstream as of now, configured then extra. */
  readonly all: readonly UpstreamTarget[];
}

/**
 * Knows the upstreams: the configured ones, the extra ones asked at lookup time (route
 * nodes), and which configured upstream each tracked transaction was sent to, since that
 * node knows its status first. The affinity store holds names: this is where a name
 * becomes an upstream, and one this instance has not configured is a miss, so nothing read
 * from a shared store is ever an address to call.
 */
export class UpstreamDirectory {
  private readonly configured: readonly UpstreamTarget[];
  private readonly byName: ReadonlyMap<string, UpstreamTarget>;
  private readonly byUrl: ReadonlyMap<string, UpstreamTarget>;
  private readonly affinity: AffinityStore;
  private readonly timeoutMs: number;
  private readonly extraUpstreams: SignatureStatusesHooks['extraUpstreams'];

  constructor(
    options: Pick<ResolvedOptions, 'upstreams' | 'upstreamTimeoutMs' | 'maxTracked'>,
    {
      extraUpstreams,
      upstreamProviders = {},
    }: Pick<SignatureStatusesHooks, 'extraUpstreams' | 'upstreamProviders'> = {},
    private readonly events: StatusEvents,
    /** Where tracks are kept: this process's memory by default, Redis to share them. */
    affinity?: AffinityStore,
  ) {
    this.extraUpstreams = extraUpstreams;
    this.timeoutMs = options.upstreamTimeoutMs;
    const names = upstreamNames(options.upstreams);
    this.configured = options.upstreams.map((u, i) => ({
      url: u.url,
      name: names[i]!,
      label: names[i]!,
      timeoutMs: u.timeoutMs ?? this.timeoutMs,
      trusted: true,
      providers: providedUpstream(upstreamProviders, names[i]!)?.providers,
    }));
    this.byName = new Map(this.configured.map((t) => [t.name, t]));
    // The first of two equal URLs is the one a track by URL names.
    const byUrl = new Map(this.configured.toReversed().map((t) => [normalized(t.url)!, t]));
    // As configured too: a track names its upstream by the URL it was given, and parsing a
    // URL for every sent transaction cost 20 µs of a send's CPU.
    for (const t of this.configured) if (!byUrl.has(t.url)) byUrl.set(t.url, byUrl.get(normalized(t.url)!)!);
    this.byUrl = byUrl;
    this.affinity = affinity ?? new Affinity(options.maxTracked);
  }

  /** The configured upstreams' names, in the order configured. */
  get configuredNames(): string[] {
    return this.configured.map((t) => t.name);
  }

  /**
   * Remembers that the transaction with `signature` was sent to `upstream`, a configured
   * upstream's URL or name. Anything else is not tracked (false): an extra upstream is
   * not trusted to be asked first.
   */
  track(signature: string, upstream: string): boolean {
    const target =
      this.byName.get(upstream) ?? this.byUrl.get(upstream) ?? this.byUrl.get(normalized(upstream) ?? '');
    if (target === undefined) return false;
    this.affinity.track(signature, target.name);
    return true;
  }

  async plan(signatures: readonly string[]): Promise<UpstreamPlan> {
    const [all, tracked] = await Promise.all([this.everyUpstream(), this.affinity.upstreamsOf(signatures)]);
    const byTarget = new Map<UpstreamTarget, number[]>();
    // Fresh signatures are tracked nowhere: no walk over them.
    if (tracked.size > 0) {
      signatures.forEach((signature, i) => {
        const name = tracked.get(signature);
        const target = name === undefined ? undefined : this.byName.get(name);
        if (target !== undefined) (byTarget.get(target) ?? byTarget.set(target, []).get(target)!).push(i);
      });
    }
    return { tracked: [...byTarget], all };
  }

  /** The configured upstreams, then the extra ones not already among them (extra ones use upstreamTimeoutMs). */
  private async everyUpstream(): Promise<readonly UpstreamTarget[]> {
    if (!this.extraUpstreams) return this.configured;
    let extra: readonly ExtraUpstream[];
    try {
      extra = await this.extraUpstreams();
    } catch (err) {
      this.events.log.warn({ err }, 'extraUpstreams failed; asking the configured upstreams only');
      return this.configured;
    }
    const seen = new Set(this.configured.map((t) => normalized(t.url)));
    const all = [...this.configured];
    for (const upstream of extra) {
      const { url, addressGuard, label } =
        typeof upstream === 'string'
          ? { url: upstream, addressGuard: undefined, label: undefined }
          : upstream;
      const key = normalized(url);
      if (key === undefined) {
        this.events.log.warn({ upstream: redactUrl(url) }, 'extra upstream is not an http(s) URL; skipped');
      } else if (!seen.has(key)) {
        seen.add(key);
        const name = this.extraName(url);
        all.push({
          url,
          name,
          label: label ?? name,
          timeoutMs: this.timeoutMs,
          trusted: false,
          addressGuard,
        });
      }
    }
    return all;
  }

  /** An extra upstream's redacted URL, marked when a configured upstream has that name, so none passes for the other. */
  private extraName(url: string): string {
    const name = redactUrl(url);
    return this.byName.has(name) ? `${name} (extra)` : name;
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
