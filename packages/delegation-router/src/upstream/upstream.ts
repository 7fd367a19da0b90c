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
  /**
   * Whether the operator vouched for it (the base chain, an allow-listed ER, an ER of a
   * route table nobody else can write to): only then may what it answers be remembered for
   * other clients (a blockhash's origin, a signature's), and its failures shown in detail.
   */
  readonly vetted: boolean;
}

/** The name of the base chain in logs, error data and affinity. */
export const BASE_CHAIN_NAME = 'base-chain';

export const baseChainUpstream = (url: string): Upstream => ({ name: BASE_CHAIN_NAME, url, vetted: true });

/** An ER is named by its identity: a name that stays put when its URL moves, and tells nothing secret. */
export const erName = (identity: string): string => `er:${identity}`;

export const erUpstream = (identity: string, url: string, vetted: boolean): Upstream => ({
  name: erName(identity),
  url,
  identity,
  vetted,
});

/** What error data shows of an upstream: its name and its URL without credentials. */
export const shownUpstream = (u: Upstream): { name: string; url: string } => ({
  name: u.name,
  url: redactUrl(u.url),
});
