import type { AddressGuard, ProviderSet } from '@rollup-router/core';

/**
 * A chain this router sends calls to: the base chain, or one ER. `name` is what logs,
 * error data and the signature affinity carry; `url` is only ever called, never shown.
 */
export interface Upstream {
  readonly name: string;
  readonly url: string;
  /** The ER validator's identity; undefined for the base chain. */
  readonly identity?: string;
  /**
   * Whether the operator vouched for it (the base chain, an allow-listed ER, or without an
   * allow-list an ER the operator listed, not one only the chain registry lists): only then
   * may what it answers be remembered for other clients (a blockhash's origin).
   */
  readonly vetted: boolean;
  /** What every connection to `url` goes through: an ER the on-chain registry lists has one (NodeStatus.addressGuard). */
  readonly addressGuard?: AddressGuard;
  /** The base chain's providers when the operator listed several: calls go through the set, not to `url`. */
  readonly providers?: ProviderSet;
}

/** The name of the base chain in logs, error data and affinity. */
export const BASE_CHAIN_NAME = 'base-chain';

export const baseChainUpstream = (url: string): Upstream => ({ name: BASE_CHAIN_NAME, url, vetted: true });

/** An ER is named by its identity: a name that stays put when its URL moves, and tells nothing secret. */
export const erName = (identity: string): string => `er:${identity}`;

export const erUpstream = (
  identity: string,
  url: string,
  vetted: boolean,
  addressGuard?: AddressGuard,
): Upstream => ({
  name: erName(identity),
  url,
  identity,
  vetted,
  addressGuard,
});
