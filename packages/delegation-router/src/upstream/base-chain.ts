import { ProviderSet, type JsonRpcOutcome, type PluginContext, type Provider } from '@rollup-router/core';
import { deriveWsUrl } from '@rollup-router/core/internal';
import type { DelegationRouterOptionsResolved } from '../generated/schemas.js';
import { decodeWireTransaction } from '../transaction/decode-transaction.js';
import { BASE_CHAIN_NAME, type Upstream } from './upstream.js';

type BaseChainOptions = NonNullable<DelegationRouterOptionsResolved['baseChain']>;

/** A base-chain provider with the websocket URL its subscriptions go to. */
export interface BaseChainProvider extends Provider {
  readonly wsUrl: string;
}

/** The base chain as calls and subscriptions reach it: one URL, or a provider set that picks among several. */
export interface BaseChain {
  readonly upstream: Upstream;
  /** The websocket of the provider calls go to now: asked at each (re)connect. */
  readonly wsUrl: () => string;
  /** Undefined for the one-URL form. */
  readonly providers: ProviderSet | undefined;
}

/** The providers of the config: its list, or its one URL. Refuses both or neither. */
export function baseChainProviders(options: BaseChainOptions): BaseChainProvider[] {
  const { url, providers, wsUrl } = options;
  if ((url === undefined) === (providers === undefined)) {
    throw new TypeError('delegation router options: baseChain takes url or providers, one of them');
  }
  if (url !== undefined) return [{ name: BASE_CHAIN_NAME, url, wsUrl: wsUrl ?? deriveWsUrl(url) }];
  const list = providers!;
  const names = new Set(list.map((p) => p.name));
  if (names.size !== list.length)
    throw new TypeError('delegation router options: baseChain.providers names must differ');
  return list.map((p) => ({
    name: p.name,
    url: p.url,
    headers: p.headers && stringsOf(p.headers),
    wsUrl: p.wsUrl ?? deriveWsUrl(p.url),
  }));
}

/**
 * The base chain of the options. With a providers list, calls go through a ProviderSet whose
 * freshness is getSlot at the configured commitment, and a sendTransaction sent again to a
 * second provider that answers "already processed" was taken by the first: its signature is
 * the answer (the chain deduplicates signatures, so it cannot land twice).
 */
export function baseChainOf(
  options: BaseChainOptions,
  timeoutMs: number,
  log: () => PluginContext['log'] | undefined,
): BaseChain {
  const list = baseChainProviders(options);
  if (options.providers === undefined) {
    const only = list[0]!;
    return {
      upstream: { name: BASE_CHAIN_NAME, url: only.url, vetted: true },
      wsUrl: () => only.wsUrl,
      providers: undefined,
    };
  }
  const providers = new ProviderSet({
    providers: list,
    freshness: async (ask) => slotOf(await ask('getSlot', [{ commitment: options.commitment }])),
    maxLag: options.maxSlotLag,
    probeIntervalMs: options.probeIntervalMs,
    maxBackoffMs: Math.max(options.maxProbeIntervalMs, options.probeIntervalMs),
    probeTimeoutMs: timeoutMs,
    hedgeAfterMs: options.hedgeAfterMs,
    alreadyTaken: (method, params, error) =>
      method === 'sendTransaction' && ALREADY_PROCESSED.test(error.message) ? signatureOf(params) : undefined,
    log,
  });
  const wsOf = new Map(list.map((p) => [p.name, p.wsUrl]));
  return {
    upstream: { name: BASE_CHAIN_NAME, url: list[0]!.url, vetted: true, providers },
    wsUrl: () => wsOf.get(providers.current().name)!,
    providers,
  };
}

/** Agave's preflight answer to a signature it has seen ("This transaction has already been processed"). */
const ALREADY_PROCESSED = /already been processed|AlreadyProcessed/i;

/** The schema makes every header a string; its generated type allows undefined for any key. */
const stringsOf = (headers: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));

function slotOf(outcome: JsonRpcOutcome): number | undefined {
  if (outcome.kind !== 'reply' || outcome.httpStatus !== 200 || outcome.reply.error != null) return undefined;
  const slot = outcome.reply.result;
  return typeof slot === 'number' && Number.isSafeInteger(slot) ? slot : undefined;
}

function signatureOf(params: unknown): string | undefined {
  const [wire, config] = params as [string, { encoding?: 'base58' | 'base64' } | undefined];
  const decoded = decodeWireTransaction(wire, config?.encoding ?? 'base58');
  return decoded.ok ? decoded.tx.signature : undefined;
}
