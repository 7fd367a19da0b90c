import {
  definePlugin,
  JsonRpcClient,
  type Plugin,
  type PluginContext,
  type ProviderSet,
} from '@rollup-router/core';
import { DelegationSource, type DelegationSourceOptions } from './delegation/delegation-source.js';
import { ProgramDelegations } from './delegation/program-delegations.js';
import { ProgramErLookup } from './delegation/program-ers.js';
import { SharedDelegations } from './delegation/shared-delegations.js';
import { DelegationError } from './errors.js';
import { standardMethods, type ForwardingParts, type StandardMethod } from './methods/forwarded-methods.js';
import { getBlockhashForAccountsMethod } from './methods/get-blockhash-for-accounts.js';
import { getDelegationStatusMethod } from './methods/get-delegation-status.js';
import { getIdentityMethod } from './methods/get-identity.js';
import { sendTransactionMethod } from './methods/send-transaction.js';
import {
  resolveOptions,
  type DelegationRouterPluginOptions,
  type ResolvedDelegationRouterOptions,
} from './options.js';
import { Routing } from './routing.js';
import { PubsubRelay } from './subscriptions/pubsub-relay.js';
import { relayedSubscriptions, type RelayedSubscription } from './subscriptions/relayed-subscriptions.js';
import { LookupTables } from './transaction/lookup-tables.js';
import { ErDirectory } from './upstream/er-directory.js';
import { Origins } from './upstream/origins.js';
import { RecentBlockhashes } from './upstream/recent-blockhashes.js';
import { reportUpstreamCalls } from './upstream/call-reports.js';
import { upstreamCaller, type UpstreamCaller } from './upstream/upstream-caller.js';
import { UpstreamLabels } from './upstream/upstream-labels.js';
import { baseChainOf, type BaseChain } from './upstream/base-chain.js';
import type { Upstream } from './upstream/upstream.js';
import { BASE_CHAIN_NAME } from './upstream/upstream.js';
import { relayCounts, type RelayCounts } from './subscriptions/relay-counts.js';
import { SOLANA_CLIENT_HEADER, solanaWireErrors } from '@rollup-router/solana';

export interface DelegationRouterPlugin extends Plugin {
  readonly name: 'delegation-router';
  /** Named by their literal types: `ApiOf<typeof plugin>` includes each method and subscription the router serves. */
  readonly methods: readonly [
    ReturnType<typeof getBlockhashForAccountsMethod>,
    ReturnType<typeof getIdentityMethod>,
    ReturnType<typeof getDelegationStatusMethod>,
    ReturnType<typeof sendTransactionMethod>,
    ...StandardMethod[],
  ];
  readonly subscriptions: readonly RelayedSubscription[];
  readonly options: ResolvedDelegationRouterOptions['json'];
  /** Routing by delegation: the delegation source, the ERs, the base chain. */
  readonly routing: Routing;
  /** The base chain's providers when the operator listed several (their health for /ready); undefined for one URL. */
  readonly baseChainProviders: ProviderSet | undefined;
  /** The websocket of the base-chain provider calls go to now (the one URL's, or the set's current one). */
  readonly baseChainWsUrl: () => string;
  /** Where the subscriptions (accountSubscribe, logsSubscribe, programSubscribe, ...) are relayed: the base chain's websocket and the ERs'. */
  readonly pubsubRelay: PubsubRelay;
  /** The relay's subscriptions right now, upstream ones by upstream label (for metrics). */
  relayCounts(): RelayCounts;
}

/** Blockhashes handed out and transactions sent that are remembered (each with its upstream). */
const MAX_REMEMBERED = 100_000;
/** The relay's upstream sockets, as the statuses plugin's defaults: a ping every 10 s, reconnects at most 5 s apart. */
const PING_INTERVAL_MS = 10_000;
const RECONNECT_MAX_DELAY_MS = 5_000;

/** The delegation source's settings from the plugin's options. */
function sourceOptions(
  json: ResolvedDelegationRouterOptions['json'],
  hooks: ResolvedDelegationRouterOptions['hooks'],
  baseChain: BaseChain,
): DelegationSourceOptions {
  const { delegations } = json;
  return {
    baseChain: baseChain.upstream,
    programId: delegations.programId,
    commitment: json.baseChain.commitment,
    maxEntries: delegations.maxEntries,
    ttlMs: delegations.ttlMs,
    follow: delegations.follow
      ? {
          wsUrl: baseChain.wsUrl,
          ttlMs: delegations.followedTtlMs,
          max: delegations.maxFollowed,
        }
      : undefined,
    shared: hooks.redis && new SharedDelegations(hooks.redis, delegations.ttlMs),
  };
}

/** The caller of the base chain and the ERs, each call reported to onUpstreamCall (when given) by label. */
function callerOf(
  json: ResolvedDelegationRouterOptions['json'],
  hooks: ResolvedDelegationRouterOptions['hooks'],
  labels: UpstreamLabels,
  log: () => PluginContext['log'] | undefined,
): UpstreamCaller {
  const observe = hooks.onUpstreamCall && reportUpstreamCalls(hooks.onUpstreamCall, labels, log);
  return upstreamCaller(new JsonRpcClient(), json.upstreamTimeoutMs, log, observe, (u) => labels.of(u));
}

/** The subscriptions' relay to the base chain's websocket and the ERs'. */
function pubsubRelayOf(
  json: ResolvedDelegationRouterOptions['json'],
  routing: Routing,
  caller: UpstreamCaller,
  baseChain: BaseChain,
  log: () => PluginContext['log'] | undefined,
): PubsubRelay {
  const programs = new ProgramErLookup(
    caller,
    routing.baseChain,
    json.delegations.programId,
    json.baseChain.commitment,
    json.delegations.maxProgramRecords,
  );
  const options = {
    baseWsUrl: baseChain.wsUrl,
    programId: json.delegations.programId,
    pingIntervalMs: PING_INTERVAL_MS,
    reconnectMaxDelayMs: RECONNECT_MAX_DELAY_MS,
    handshakeTimeoutMs: json.upstreamTimeoutMs,
    subscriptionsPerSocket: json.subscriptionsPerUpstreamSocket,
    readAccount: (upstream: Upstream) => (params: readonly [string, Record<string, unknown>]) =>
      caller.forward(upstream, 'getAccountInfo', params),
  };
  return new PubsubRelay(routing, programs, options, log);
}

/** The standard Solana methods, with this configuration's caps and program-accounts bound. */
function standardMethodsOf(
  json: ResolvedDelegationRouterOptions['json'],
  parts: Omit<ForwardingParts, 'caps' | 'programDelegations'>,
) {
  const programDelegations = new ProgramDelegations(parts.caller, {
    baseChain: parts.routing.baseChain,
    programId: json.delegations.programId,
    maxDelegated: json.programAccounts.maxDelegated,
    maxRemembered: json.delegations.maxEntries,
  });
  return standardMethods({ ...parts, caps: json.maxReplyBytes, programDelegations });
}

/**
 * The methods MagicBlock's SDKs call on a router (getBlockhashForAccounts, getIdentity,
 * getDelegationStatus, sendTransaction and the Solana reads of their flows), each sent
 * to the ER the accounts it names are delegated to, or to the base chain. Needs the
 * routes plugin: its route table maps an ER's identity to its URL.
 */
export function delegationRouterPlugin(options: DelegationRouterPluginOptions): DelegationRouterPlugin {
  const { json, hooks } = resolveOptions(options);
  const labels = new UpstreamLabels(json.identity);
  let log: PluginContext['log'] | undefined;
  const caller = callerOf(json, hooks, labels, () => log);
  const base = baseChainOf(json.baseChain, json.upstreamTimeoutMs, () => log);
  const { upstream: baseChain } = base;
  const source = new DelegationSource(sourceOptions(json, hooks, base), caller, () => log);
  const ers = new ErDirectory(hooks.registry, json.identity);
  const routing = new Routing(source, ers, baseChain);
  const [blockhashes, sent] = [new Origins(MAX_REMEMBERED), new Origins(MAX_REMEMBERED)];
  const tables = new LookupTables(caller, baseChain, json.lookupTables.maxAddresses);
  const relay = pubsubRelayOf(json, routing, caller, base, () => log);

  return definePlugin({
    name: 'delegation-router' as const,
    dependencies: ['routes'],
    allowHeaders: [SOLANA_CLIENT_HEADER],
    wireErrors: solanaWireErrors,
    options: json,
    routing,
    baseChainProviders: base.providers,
    baseChainWsUrl: base.wsUrl,
    pubsubRelay: relay,
    relayCounts: () => relayCounts(relay, baseChain, hooks.registry, labels),
    errors: Object.values(DelegationError),
    methods: [
      getBlockhashForAccountsMethod(
        routing,
        new RecentBlockhashes(caller, json.blockhashMaxAgeMs),
        blockhashes,
      ),
      getIdentityMethod(ers),
      getDelegationStatusMethod(routing),
      sendTransactionMethod(routing, caller, tables, sent, hooks.onSent, () => log),
      ...standardMethodsOf(json, { routing, caller, tables, blockhashes, sent }),
    ],
    subscriptions: relayedSubscriptions(relay),
    start(ctx: PluginContext) {
      log = ctx.log;
      base.providers?.start();
      announce(ctx, json, hooks, ers.restricted);
    },
    async stop() {
      relay.stop();
      source.stop();
      await Promise.all([caller.close(), base.providers?.stop()]);
    },
  });
}

/** What the plugin says at start: warns of an open registry without an allow-list. */
function announce(
  ctx: PluginContext,
  json: ResolvedDelegationRouterOptions['json'],
  hooks: ResolvedDelegationRouterOptions['hooks'],
  restricted: boolean,
): void {
  if (hooks.openRegistry && !restricted) {
    ctx.log.warn(
      'routes.chain without delegation.identity.allow: every ER anyone registers on chain is routable and getIdentity may name it; set identity.allow to the ERs you trust',
    );
  }
  ctx.log.info(
    {
      baseChain: BASE_CHAIN_NAME,
      programId: json.delegations.programId,
      identity: json.identity,
      redis: hooks.redis !== undefined,
    },
    'delegation router ready',
  );
}
