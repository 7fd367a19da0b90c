import type { IncomingMessage } from 'node:http';
import type ProxyAddr from 'proxy-addr';
import { loadOptionalPackage } from './optional-package.js';

/**
 * Which hops in front of the service are trusted to report the client's address, as
 * Express's `trust proxy`: `true` trusts every hop (the client is the leftmost
 * X-Forwarded-For address, which any client can write: only behind a proxy that
 * overwrites the header), a hop count trusts that many hops nearest the service, and a
 * list trusts those addresses, CIDR ranges and presets (loopback, linklocal, uniquelocal).
 */
export type TrustProxy = boolean | number | readonly string[];

export type ClientAddressOf = (remoteAddress: string | undefined, forwardedFor: string | undefined) => string;

/**
 * The client's address: the socket's peer, or, walking X-Forwarded-For from the right,
 * the first address that is not a trusted proxy (the one the trusted proxy saw).
 * proxy-addr does the walk, exactly as Express's `req.ip`.
 */
export function clientAddressOf(trust: TrustProxy): ClientAddressOf {
  if (!trusting(trust)) return (remoteAddress) => remoteAddress ?? 'unknown';
  // An optional peer: loaded only when some proxy is trusted.
  const proxyAddr = loadOptionalPackage<typeof ProxyAddr>(
    import.meta.url,
    'proxy-addr',
    'core option /trustProxy is set',
  );
  const trusts = compileTrust(trust, proxyAddr);
  return (remoteAddress, forwardedFor) => {
    if (remoteAddress === undefined) return 'unknown';
    // proxy-addr reads only these two members of the request.
    const req = {
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      socket: { remoteAddress },
    } as unknown as IncomingMessage;
    return proxyAddr(req, trusts);
  };
}

/** Whether `trust` trusts any hop (false, 0 and [] trust none). */
const trusting = (trust: TrustProxy): boolean =>
  !(trust === false || (Array.isArray(trust) && trust.length === 0) || trust === 0);

function compileTrust(
  trust: TrustProxy,
  proxyAddr: typeof ProxyAddr,
): (address: string, hop: number) => boolean {
  if (trust === true) return () => true;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  try {
    return proxyAddr.compile([...(trust as readonly string[])]);
  } catch (err) {
    throw new TypeError(`trustProxy: ${(err as Error).message}`, { cause: err });
  }
}

/** The trustProxy in force, and what the operator should be told about it at start. */
export interface TrustProxySetting {
  readonly trust: TrustProxy;
  readonly warnings: readonly string[];
}

/**
 * The top-level `trustProxy`, or its deprecated alias `rateLimit.trustProxy` when only that
 * is set (the two set to different values is a mistake, refused). `true` is warned about:
 * it trusts every hop, so any client that writes X-Forwarded-For picks its own address
 * (its own rate budget, connection and subscription share), as express-rate-limit warns.
 */
export function trustProxySetting(
  topLevel: TrustProxy | undefined,
  alias: TrustProxy | undefined,
): TrustProxySetting {
  const warnings: string[] = [];
  if (alias !== undefined) {
    if (topLevel !== undefined && JSON.stringify(topLevel) !== JSON.stringify(alias)) {
      throw new TypeError(
        `trustProxy is ${JSON.stringify(topLevel)} and rateLimit.trustProxy (its deprecated alias) is ${JSON.stringify(alias)}: set the top-level trustProxy only`,
      );
    }
    warnings.push(
      'rateLimit.trustProxy is deprecated: use the top-level trustProxy, which also keys the WebSocket connection and subscription limits',
    );
  }
  const trust = topLevel ?? alias ?? false;
  if (trust === true) {
    warnings.push(
      'trustProxy is true: every hop is trusted and the client address is the leftmost X-Forwarded-For entry, which any client can write to get a fresh rate budget and connection share; only safe behind a proxy that overwrites X-Forwarded-For. Prefer a hop count or the proxy addresses',
    );
  }
  return { trust, warnings };
}
