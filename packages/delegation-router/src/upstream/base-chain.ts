import type { PluginContext, ProviderSet } from '@rollup-router/core';
import { currentWsUrl, solanaProviders, solanaProviderSet } from '@rollup-router/solana';
import type { DelegationRouterOptionsResolved } from '../generated/schemas.js';
import { decodeWireTransaction } from '../transaction/decode-transaction.js';
import { BASE_CHAIN_NAME, type Upstream } from './upstream.js';

type BaseChainOptions = NonNullable<DelegationRouterOptionsResolved['baseChain']>;

/** The base chain as calls and subscriptions reach it: one URL, or a provider set that picks among several. */
export interface BaseChain {
  readonly upstream: Upstream;
  /** The websocket of the provider calls go to now: asked at each (re)connect. */
  readonly wsUrl: () => string;
  /** Undefined for the one-URL form. */
  readonly providers: ProviderSet | undefined;
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
  // The config's list, or its one URL; refuses both or neither.
  const list = solanaProviders(options, BASE_CHAIN_NAME, 'delegation router options: baseChain');
  if (options.providers === undefined) {
    const only = list[0]!;
    return {
      upstream: { name: BASE_CHAIN_NAME, url: only.url, vetted: true },
      wsUrl: () => only.wsUrl,
      providers: undefined,
    };
  }
  const providers = solanaProviderSet(options, list, {
    timeoutMs,
    alreadyTaken: (method, params, error) =>
      method === 'sendTransaction' && ALREADY_PROCESSED.test(error.message) ? signatureOf(params) : undefined,
    log,
  });
  return {
    upstream: { name: BASE_CHAIN_NAME, url: list[0]!.url, vetted: true, providers },
    wsUrl: currentWsUrl(providers, list),
    providers,
  };
}

/** Agave's preflight answer to a signature it has seen ("This transaction has already been processed"). */
const ALREADY_PROCESSED = /already been processed|AlreadyProcessed/i;

function signatureOf(params: unknown): string | undefined {
  const [wire, config] = params as [string, { encoding?: 'base58' | 'base64' } | undefined];
  const decoded = decodeWireTransaction(wire, config?.encoding ?? 'base58');
  return decoded.ok ? decoded.tx.signature : undefined;
}
