import { definePlugin, type Plugin, type PluginContext } from '@rollup-router/core';
import { Affinity } from './affinity.js';
import { Coalescer } from './coalescer.js';
import { StatusesError } from './errors.js';
import type { GetSignatureStatusesResult } from './generated/schemas.js';
import { lookupStatuses, type ChainDeps, type LookupOptions } from './lookup.js';
import { MemoryCache } from './memory-cache.js';
import { getSignatureStatusesMethod } from './method.js';
import {
  resolveOptions,
  type LookupLayer,
  type ResolvedOptions,
  type SignatureStatusesOptions,
} from './options.js';
import { StatusStore, type FinalizedRecord } from './store.js';
import type { UpstreamTarget } from './upstream/call-upstream.js';
import { UpstreamPools } from './upstream/pools.js';
import { redactUrl } from './upstream/redact-url.js';
import { UpstreamResolver, type UpstreamAnswer } from './upstream/resolver.js';

type Logger = PluginContext['log'];

export interface SignatureStatusesPlugin extends Plugin {
  readonly name: 'signature-statuses';
  /** The options after validation, defaults filled. */
  readonly options: ResolvedOptions;
  /**
   * Remembers that the transaction with `signature` was sent to `upstreamUrl`, so its
   * status is asked of that upstream first (bounded by maxTracked).
   */
  track(signature: string, upstreamUrl: string): void;
  /** The chain itself, for in-process callers: signatures must be valid (the method's schema checks them). */
  lookup(signatures: readonly string[], options?: LookupOptions): Promise<GetSignatureStatusesResult>;
  /** The durable store while started, when one is configured. */
  readonly store: StatusStore | undefined;
}

/**
 * The getSignatureStatuses plugin: answers for any signature, exactly as a Solana node
 * would, from memory, a durable SQLite store and the upstream nodes, in that order.
 */
export function signatureStatusesPlugin(options?: SignatureStatusesOptions): SignatureStatusesPlugin {
  const { json, hooks } = resolveOptions(options);
  let log: Logger | undefined;
  let store: StatusStore | undefined;
  let running = false;
  let latestSlot = 0;

  const memory = new MemoryCache(json.memory.maxEntries, json.memory.unfinalizedTtlMs);
  const affinity = new Affinity(json.maxTracked);
  const pools = new UpstreamPools(json.connectionsPerUpstream, json.maxUpstreamPools);
  const configured: UpstreamTarget[] = json.upstreams.map((u) => ({
    url: u.url,
    timeoutMs: u.timeoutMs ?? json.upstreamTimeoutMs,
  }));

  const logger = (): Logger => {
    if (!log) throw new Error('signature-statuses: not started');
    return log;
  };

  /** Hooks are the embedder's code: one that throws must not fail a lookup. */
  const safely = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      log?.error({ err, hook: what }, 'signature-statuses hook threw');
    }
  };

  const targets = async (): Promise<readonly UpstreamTarget[]> => {
    if (!hooks.extraUpstreams) return configured;
    let extra: readonly string[];
    try {
      extra = await hooks.extraUpstreams();
    } catch (err) {
      logger().warn({ err }, 'extraUpstreams failed; asking the configured upstreams only');
      return configured;
    }
    const seen = new Set(configured.map((t) => normalized(t.url)));
    const all = [...configured];
    for (const url of extra) {
      const key = normalized(url);
      if (key === undefined) {
        logger().warn({ upstream: redactUrl(url) }, 'extra upstream is not an http(s) URL; skipped');
      } else if (!seen.has(key)) {
        seen.add(key);
        all.push({ url, timeoutMs: json.upstreamTimeoutMs });
      }
    }
    return all;
  };

  const resolver = new UpstreamResolver({
    pools,
    affinity,
    targets,
    defaultTimeoutMs: json.upstreamTimeoutMs,
    report: (url, outcome, ms) => {
      if (hooks.onUpstreamCall) safely('onUpstreamCall', () => hooks.onUpstreamCall!(url, outcome, ms));
    },
    log: logger,
  });

  /** What the upstreams taught us: finalized statuses for good, the others for the short TTL. */
  const remember = (answer: UpstreamAnswer): void => {
    if (answer.context && answer.context.slot > latestSlot) latestSlot = answer.context.slot;
    const records: FinalizedRecord[] = [];
    for (const [signature, status] of answer.statuses) {
      if (!status) continue;
      memory.set(signature, status);
      if (status.confirmationStatus === 'finalized')
        records.push({ signature, slot: status.slot, err: status.err });
    }
    if (!store || records.length === 0) return;
    try {
      store.putFinalized(records);
    } catch (err) {
      // The answer is still right; only its persistence failed.
      logger().error({ err }, 'could not write finalized statuses to the store');
    }
  };

  const coalescer = new Coalescer(async (signatures, history, signal) => {
    const answer = await resolver.resolve(signatures, history, signal);
    remember(answer);
    return answer;
  }, json.deadlineMs);

  const count = (layer: LookupLayer, n: number): void => {
    if (n > 0 && hooks.onLookup) safely('onLookup', () => hooks.onLookup!(layer, n));
  };

  const chain: ChainDeps = {
    memory,
    store: () => store,
    coalescer,
    apiVersion: json.apiVersion,
    latestSlot: () => latestSlot,
    count,
  };
  // Synchronous when memory or the store knows every signature; a promise only when an upstream is asked.
  const answer = (signatures: readonly string[], lookupOptions?: LookupOptions) => {
    if (!running) throw new Error('signature-statuses: lookup before start() or after stop()');
    return lookupStatuses(chain, signatures, lookupOptions);
  };
  const lookup = async (signatures: readonly string[], lookupOptions?: LookupOptions) =>
    answer(signatures, lookupOptions);

  return definePlugin({
    name: 'signature-statuses' as const,
    options: json,
    methods: [getSignatureStatusesMethod(answer)],
    errors: Object.values(StatusesError),
    track: (signature: string, upstreamUrl: string) => affinity.track(signature, upstreamUrl),
    lookup,
    get store() {
      return store;
    },
    start(ctx: PluginContext) {
      log = ctx.log;
      if (json.store) store = StatusStore.open(json.store.path);
      running = true;
      log.info(
        { upstreams: configured.map((t) => redactUrl(t.url)), store: json.store ? json.store.path : false },
        'signature statuses ready',
      );
    },
    async stop() {
      running = false;
      store?.close();
      store = undefined;
      memory.clear();
      await pools.close();
    },
  });
}

function normalized(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
