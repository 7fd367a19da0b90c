import { definePlugin, type Plugin, type PluginContext } from '@rollup-router/core';
import { StatusEvents } from './events.js';
import { StatusesError } from './errors.js';
import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { StatusLayer } from './layer.js';
import { MemoryCache } from './memory-cache.js';
import { getSignatureStatusesMethod } from './get-signature-statuses-method.js';
import {
  resolveOptions,
  type ResolvedOptions,
  type SignatureStatusesHooks,
  type SignatureStatusesOptions,
} from './options.js';
import { StatusChain, type LookupOptions } from './status-chain.js';
import { SharedTier } from './redis/shared-tier.js';
import { SignatureRelay } from './relay/signature-relay.js';
import { StoreLayer } from './store-layer.js';
import { signatureSubscription } from './signature-subscription.js';
import { SignatureWatch } from './signature-watch.js';
import type { StatusStore } from './store.js';
import { upstreamClient } from './upstream/call-upstream.js';
import { UpstreamDirectory } from './upstream/directory.js';
import { UpstreamFanOut } from './upstream/fan-out.js';
import { SOLANA_CLIENT_HEADER, solanaWireErrors } from '@rollup-router/solana';

export interface SignatureStatusesPlugin extends Plugin {
  readonly name: 'signature-statuses';
  /** Named by their literal types: `ApiOf<typeof plugin>` includes getSignatureStatuses and signatureSubscribe. */
  readonly methods: readonly [ReturnType<typeof getSignatureStatusesMethod>];
  readonly subscriptions: readonly [ReturnType<typeof signatureSubscription>];
  /** The options after validation, defaults filled. */
  readonly options: ResolvedOptions;
  /**
   * Remembers that the transaction with `signature` was sent to `upstream`, a configured
   * upstream's URL or name, so its status is asked of that upstream first (bounded by
   * maxTracked; shared by name through Redis). Returns false, tracking nothing, for any
   * other upstream: only configured upstreams are trusted to be asked first.
   */
  track(signature: string, upstream: string): boolean;
  /** The configured upstreams' names (metrics labels, /ready, logs), in the order configured. */
  readonly upstreamNames: readonly string[];
  /** The chain itself, for in-process callers: signatures must be valid (the method's schema checks them). */
  lookup(signatures: readonly string[], options?: LookupOptions): Promise<GetSignatureStatusesResult>;
  /** The pending signatureSubscribe subscriptions (their count, poll rounds). */
  readonly signatureWatch: SignatureWatch;
  /** Where signatureSubscribe is relayed: one websocket per configured upstream. */
  readonly signatureRelay: SignatureRelay;
  /** The durable store while started, when one is configured. */
  readonly store: StatusStore | undefined;
}

/**
 * The getSignatureStatuses plugin: answers for any signature, exactly as a Solana node
 * would, from memory, a durable SQLite store, a Redis shared with other instances and
 * the upstream nodes, in that order.
 */
export function signatureStatusesPlugin(options?: SignatureStatusesOptions): SignatureStatusesPlugin {
  const { json, hooks, redis } = resolveOptions(options);
  const events = new StatusEvents(hooks);
  const shared = redis ? new SharedTier(redis, json.maxTracked) : undefined;
  const directory = new UpstreamDirectory(json, hooks, events, shared?.affinity);
  const store = json.store ? new StoreLayer(json.store) : undefined;
  const layers = layersOf(json, store, shared);
  const client = upstreamClient(json.connectionsPerUpstream, json.maxUpstreamPools);
  const chain = new StatusChain({
    layers,
    fanOut: new UpstreamFanOut(client, directory, events),
    deadlineMs: json.deadlineMs,
    apiVersion: json.apiVersion,
    events,
  });
  let log: PluginContext['log'] | undefined;
  const { relay, watch } = signatureSubscriptions(json, hooks, chain, () => log);

  return definePlugin({
    name: 'signature-statuses' as const,
    allowHeaders: [SOLANA_CLIENT_HEADER],
    wireErrors: solanaWireErrors,
    options: json,
    methods: [getSignatureStatusesMethod((signatures, o) => chain.lookup(signatures, o))],
    subscriptions: [signatureSubscription(watch)],
    signatureWatch: watch,
    signatureRelay: relay,
    track: (signature: string, upstream: string) => directory.track(signature, upstream),
    upstreamNames: directory.configuredNames,
    errors: Object.values(StatusesError),
    lookup: async (signatures: readonly string[], o?: LookupOptions) => chain.lookup(signatures, o),
    get store() {
      return store?.store;
    },
    async start(ctx: PluginContext) {
      await shared?.start(ctx.log);
      await chain.start(ctx.log);
      log = ctx.log;
      relay.start();
      watch.start();
      ctx.log.info(
        {
          upstreams: directory.configuredNames,
          store: store ? store.path : false,
          redis: shared !== undefined,
        },
        'signature statuses ready',
      );
    },
    async stop() {
      watch.stop();
      relay.stop();
      await chain.stop();
      await shared?.stop();
    },
  });
}

/** The answer chain's layers in front of the upstreams, in the order asked. */
function layersOf(json: ResolvedOptions, store?: StoreLayer, shared?: SharedTier): StatusLayer[] {
  const layers: StatusLayer[] = [new MemoryCache(json.memory.maxEntries, json.memory.unfinalizedTtlMs)];
  if (store) layers.push(store);
  // After the store: a local disk read is cheaper than a round trip, and what the store
  // knows Redis need not be asked for. Before the upstreams: a round trip to Redis is far
  // cheaper than one to a Solana node, and spares it the load.
  if (shared) layers.push(shared.layer);
  return layers;
}

/** signatureSubscribe's parts: the relay to the upstreams' websockets, and the watch of pending signatures. */
function signatureSubscriptions(
  json: ResolvedOptions,
  hooks: SignatureStatusesHooks,
  chain: StatusChain,
  log: () => PluginContext['log'] | undefined,
) {
  // Configured upstreams only: a registry node is never asked to say a transaction landed.
  const relay = new SignatureRelay(
    json,
    log,
    (s, status) => chain.learnFromUpstream(s, status),
    hooks.upstreamProviders,
  );
  const watch = new SignatureWatch(async (s) => chain.lookup(s), json.subscriptions, log, relay);
  return { relay, watch };
}
