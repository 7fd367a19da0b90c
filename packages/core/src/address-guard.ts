import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Ranges ipaddr.js 1.9 classes as unicast that no public node is on: benchmarking
 * (198.18.0.0/15), IPv4-compatible IPv6 (deprecated, ::/96) and the IPv6 discard prefix.
 */
const UNNAMED_IPV4 = { reserved: [ipaddr.IPv4.parseCIDR('198.18.0.0/15')] };
const UNNAMED_IPV6 = { reserved: [ipaddr.IPv6.parseCIDR('::/96'), ipaddr.IPv6.parseCIDR('100::/64')] };

/** How a refusal names ipaddr.js's ranges; any other one is named as ipaddr.js names it. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
};

/**
 * The range that keeps `address` (an IP address) from being connected to, or undefined
 * for a public unicast one. An IPv4-mapped IPv6 address is judged as its IPv4 address;
 * one ipaddr.js cannot read (a form Node takes and it does not) is refused as such.
 */
export function refusedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not readable';
  const ip = ipaddr.process(address);
  const named = ip.range();
  const range =
    named !== 'unicast'
      ? named
      : ip instanceof ipaddr.IPv4
        ? ipaddr.subnetMatch(ip, UNNAMED_IPV4, 'unicast')
        : ipaddr.subnetMatch(ip, UNNAMED_IPV6, 'unicast');
  return range === 'unicast' ? undefined : (RANGE_WORDS[range] ?? range);
}

/**
 * A connection refused by an AddressGuard: a connection error like any other, with its
 * reason. For a name, the message says the range, not the address it resolved to: it may
 * reach whoever chose the URL (a routed call's error), and this resolver's view of an
 * internal name is not theirs to learn.
 */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';

  constructor(
    /** The address that would have been connected to. */
    readonly address: string,
    /** Its range, as refusedRange says it. */
    readonly range: string,
    /** The name resolved to it; undefined when the URL named the address. */
    readonly hostname: string | undefined,
    allowedBy: string,
  ) {
    const what =
      hostname === undefined ? `address ${address} is` : `${hostname} resolves to an address that is`;
    super(`${what} ${range}; ${allowedBy} allows it`);
    this.name = 'AddressRefusedError';
  }
}

export interface AddressGuardOptions {
  /** What would allow a refused address (a setting's path), said in every refusal. */
  readonly allowedBy: string;
}

/**
 * Keeps connections off loopback, private, link-local (the cloud metadata address among
 * them), unique-local, carrier-grade NAT and every other address that is not public
 * unicast: for URLs that someone other than the operator chose. The check is made on the
 * address connected to, when connecting: an IP address as it is (refusalOf), a name as it
 * resolves (lookup, given to net.connect, so the address checked is the one connected to
 * and a DNS change between a check and a connect cannot slip through).
 */
export class AddressGuard {
  readonly allowedBy: string;

  constructor(options: AddressGuardOptions) {
    this.allowedBy = options.allowedBy;
  }

  /**
   * The refusal of a connection to `host` (a URL's hostname, an IPv6 one in brackets or
   * not) when it is an IP address in a refused range. A name is undefined here: net.connect
   * skips `lookup` only for an IP address, so a name always meets `lookup`.
   */
  refusalOf(host: string): AddressRefusedError | undefined {
    const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(address) === 0) return undefined;
    const range = refusedRange(address);
    return range === undefined
      ? undefined
      : new AddressRefusedError(address, range, undefined, this.allowedBy);
  }

  /**
   * dns.lookup for net.connect (and everything built on it: undici's connector, ws): every
   * address the name resolves to is checked, and one refused refuses the name, whichever
   * of them the connection would have tried.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '');
      const first = addresses[0];
      if (first === undefined) return callback(notFound(hostname), '');
      for (const { address } of addresses) {
        const range = refusedRange(address);
        if (range !== undefined)
          return callback(new AddressRefusedError(address, range, hostname, this.allowedBy), '');
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}
