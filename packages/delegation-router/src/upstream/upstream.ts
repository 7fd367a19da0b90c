import type { AddressGuard } from '@rollup-router/core';
import { redactUrl } from '@rollup-router/core/internal';

/**
 * A chain this router sends calls to: the base chain, or one ER. `name` is what logs,
 * error data and the signature affinity carry; `url` is only ever called, never shown.
 */
export interface Upstream {
  readonly name: string;
  readonly url: string;
  /** The ER validator's identity; undefined for the base chain. */
  readonly identity?: string;
  /** What every connection to `url` goes through: an ER the on-chain registry lists has one (NodeStatus.addressGuard). */
  readonly addressGuard?: AddressGuard;
}

/** The name of the base chain in logs, error data and affinity. */
export const BASE_CHAIN_NAME = 'base-chain';

export const baseChainUpstream = (url: string): Upstream => ({ name: BASE_CHAIN_NAME, url });

/** An ER is named by its identity: a name that stays put when its URL moves, and tells nothing secret. */
export const erUpstream = (identity: string, url: string, addressGuard?: AddressGuard): Upstream => ({
  name: `er:${identity}`,
  url,
  identity,
  addressGuard,
});

/** What error data shows of an upstream: its name and its URL without credentials. */
export const shownUpstream = (u: Upstream): { name: string; url: string } => ({
  name: u.name,
  url: redactUrl(u.url),
});
