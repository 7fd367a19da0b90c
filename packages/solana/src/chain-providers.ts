import {
  ProviderSet,
  type JsonRpcOutcome,
  type Provider,
  type ProviderSetOptions,
} from '@rollup-router/core';
import { deriveWsUrl } from './ws-url.js';
import type { Commitment } from './commitment.js';
import type { ChainProvider } from './generated/schemas.js';

/** A Solana provider with the websocket URL its subscriptions go to. */
export interface SolanaProvider extends Provider {
  readonly wsUrl: string;
}

/** How a Solana cluster is configured: one URL, or a list of providers (schemas/chain-cluster.schema.json). */
export interface SolanaChainConfig {
  readonly url?: string;
  readonly wsUrl?: string;
  readonly providers?: readonly ChainProvider[];
  readonly commitment: Commitment;
  readonly maxSlotLag: number;
  readonly probeIntervalMs: number;
  readonly maxProbeIntervalMs: number;
  readonly hedgeAfterMs?: number;
}

/**
 * The providers of a config: its list, or its one URL named `singleName`. Refuses both or
 * neither, and two providers of one name (they would share a label in metrics and /ready).
 */
export function solanaProviders(
  config: SolanaChainConfig,
  singleName: string,
  where: string,
): SolanaProvider[] {
  const { url, providers, wsUrl } = config;
  if ((url === undefined) === (providers === undefined))
    throw new TypeError(`${where} takes url or providers, one of them`);
  if (url !== undefined) return [{ name: singleName, url, wsUrl: wsUrl ?? deriveWsUrl(url) }];
  const list = providers!;
  if (new Set(list.map((p) => p.name)).size !== list.length)
    throw new TypeError(`${where}.providers names must differ`);
  return list.map((p) => ({
    name: p.name,
    url: p.url,
    headers: p.headers && stringsOf(p.headers),
    wsUrl: p.wsUrl ?? deriveWsUrl(p.url),
  }));
}

/**
 * A provider set over Solana providers: freshness is getSlot at the configured commitment,
 * probed every probeIntervalMs (with more than one provider).
 */
export function solanaProviderSet(
  config: SolanaChainConfig,
  providers: readonly SolanaProvider[],
  extra: Pick<ProviderSetOptions, 'alreadyTaken' | 'log' | 'client'> & { readonly timeoutMs: number },
): ProviderSet {
  const { timeoutMs, ...rest } = extra;
  return new ProviderSet({
    ...rest,
    providers,
    freshness: async (ask) => slotOf(await ask('getSlot', [{ commitment: config.commitment }])),
    maxLag: config.maxSlotLag,
    probeIntervalMs: config.probeIntervalMs,
    maxBackoffMs: Math.max(config.maxProbeIntervalMs, config.probeIntervalMs),
    probeTimeoutMs: timeoutMs,
    hedgeAfterMs: config.hedgeAfterMs,
  });
}

/** The websocket URL of the provider a set sends calls to now: asked at each (re)connect. */
export function currentWsUrl(set: ProviderSet, providers: readonly SolanaProvider[]): () => string {
  const wsOf = new Map(providers.map((p) => [p.name, p.wsUrl]));
  return () => wsOf.get(set.current().name)!;
}

/** The schema makes every header a string; its generated type allows undefined for any key. */
const stringsOf = (headers: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));

function slotOf(outcome: JsonRpcOutcome): number | undefined {
  if (outcome.kind !== 'reply' || outcome.httpStatus !== 200 || outcome.reply.error != null) return undefined;
  const slot = outcome.reply.result;
  return typeof slot === 'number' && Number.isSafeInteger(slot) ? slot : undefined;
}
