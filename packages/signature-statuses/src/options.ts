import { closestName, validateOptions, type AddressGuard, type ProviderSet } from '@rollup-router/core';
import type { RedisClientLike } from './redis/redis-client-like.js';
import type { StatusesObservers } from './events.js';
import { upstreamNames } from './upstream/upstream-names.js';
import {
  redisOptionsSchema,
  statusesPluginOptionsSchema,
  type RedisOptions,
  type RedisOptionsResolved,
  type StatusesPluginOptions,
  type StatusesPluginOptionsResolved,
} from './generated/schemas.js';

/** An extra upstream whose connections go through a guard: a URL the operator did not choose. */
export interface GuardedUpstream {
  readonly url: string;
  /** Each connection to `url` goes only where this allows (a chain node's NodeStatus.addressGuard). */
  readonly addressGuard: AddressGuard | undefined;
  /**
   * What onUpstreamCall reports it under instead of its redacted URL (the server's:
   * `er:<identity>`, or `er:other` shared by the ERs the operator did not name, so metrics
   * stay bounded). Logs and error data still name it by its redacted URL.
   */
  readonly label?: string;
}

/** Options that are functions, so not JSON and not in the options schema. */
export interface SignatureStatusesHooks extends StatusesObservers {
  /**
   * More upstreams, asked at lookup time (the server passes the routes plugin's available
   * nodes): URLs, or URLs with the guard their connections go through. Deduplicated
   * against `upstreams`; these use `upstreamTimeoutMs`.
   */
  readonly extraUpstreams?: () => readonly ExtraUpstream[] | Promise<readonly ExtraUpstream[]>;
  /**
   * Configured upstreams served by several providers of one chain, by the upstream's name:
   * its calls go through the set (failover, health, each provider's headers and
   * credentials) instead of to its `url`, and its signatureSubscribe relay connects to the
   * websocket of the provider calls go to at the time. Each attempt is reported to
   * onUpstreamCall as `<name>:<provider>` (with more than one provider).
   */
  readonly upstreamProviders?: Readonly<Record<string, ProvidedUpstream>>;
}

/** A configured upstream's providers (SignatureStatusesHooks.upstreamProviders). */
export interface ProvidedUpstream {
  readonly providers: ProviderSet;
  /** The websocket of the provider calls go to now: asked at each (re)connect. */
  readonly wsUrl: () => string;
}

/** The providers the embedder gave for the configured upstream `name`, if any (own keys only). */
export const providedUpstream = (
  upstreamProviders: SignatureStatusesHooks['upstreamProviders'],
  name: string,
): ProvidedUpstream | undefined =>
  upstreamProviders !== undefined && Object.hasOwn(upstreamProviders, name)
    ? upstreamProviders[name]
    : undefined;

/** An extra upstream: its URL, or its URL with its guard (and label). */
export type ExtraUpstream = string | GuardedUpstream;

/**
 * A Redis shared with other instances: `{ url, ... }` (the plugin connects at start and
 * disconnects at stop), or an ioredis client of yours (yours to connect and close; give it
 * a commandTimeout and no offline queue so a down Redis fails fast), alone or as
 * `{ client, statusTtlSeconds, ... }`. The client is typed by shape (RedisClientLike): an
 * ioredis client fits, and a project without ioredis type-checks. The JSON part is
 * schemas/redis-options.schema.json.
 */
export type StatusesRedisOption = RedisClientLike | (RedisOptions & { readonly client?: RedisClientLike });

export type SignatureStatusesOptions = StatusesPluginOptions &
  SignatureStatusesHooks & { readonly redis?: StatusesRedisOption };

/** The options after schema validation: every member with a schema default is present. */
export type ResolvedOptions = StatusesPluginOptionsResolved;

/** The redis option resolved: its JSON part with defaults, and the caller's client if one was given. */
export interface ResolvedRedis {
  readonly options: RedisOptionsResolved;
  readonly client: RedisClientLike | undefined;
}

/** What configures the connection, so only with `url`. */
const CONNECTION_KEYS = ['keyPrefix', 'commandTimeoutMs', 'connectTimeoutMs'] as const;

const isClient = (v: unknown): v is RedisClientLike =>
  v !== null && typeof v === 'object' && typeof (v as RedisClientLike).mget === 'function';

/** Splits the function options off, validates the rest against its schema and fills the defaults. */
export function resolveOptions(options: SignatureStatusesOptions = {}): {
  json: ResolvedOptions;
  hooks: SignatureStatusesHooks;
  redis: ResolvedRedis | undefined;
} {
  const { extraUpstreams, upstreamProviders, onUpstreamCall, onLookup, redis, ...json } = options;
  const resolved = validateOptions<ResolvedOptions>(
    statusesPluginOptionsSchema,
    json,
    'signature-statuses options',
  );
  checkUpstreamProviders(upstreamProviders, upstreamNames(resolved.upstreams));
  return {
    json: resolved,
    hooks: { extraUpstreams, upstreamProviders, onUpstreamCall, onLookup },
    redis: redis === undefined ? undefined : resolveRedis(redis),
  };
}

/** Providers given for an upstream that is not configured would never be used: a misspelt name, refused. */
function checkUpstreamProviders(
  upstreamProviders: SignatureStatusesHooks['upstreamProviders'],
  names: readonly string[],
): void {
  const unknown = Object.keys(upstreamProviders ?? {}).find((name) => !names.includes(name));
  if (unknown === undefined) return;
  const near = closestName(unknown, names);
  throw new TypeError(
    `signature-statuses options: /upstreamProviders names "${unknown}", which is not a configured upstream${
      near === undefined ? '' : ` (did you mean "${near}"?)`
    }`,
  );
}

function resolveRedis(redis: StatusesRedisOption): ResolvedRedis {
  const { client, ...json } = isClient(redis) ? { client: redis } : redis;
  if (client !== undefined && !isClient(client))
    throw new TypeError('signature-statuses options: /redis/client must be an ioredis client');
  const resolved = validateOptions<RedisOptionsResolved>(
    redisOptionsSchema,
    json,
    'signature-statuses options, redis',
  );
  if ((resolved.url === undefined) === (client === undefined))
    throw new TypeError('signature-statuses options: /redis needs either url or client (one of them)');
  // A client comes configured: these would be silently ignored.
  const ignored = CONNECTION_KEYS.find((key) => client !== undefined && key in json);
  if (ignored !== undefined)
    throw new TypeError(
      `signature-statuses options: /redis/${ignored} applies to url only; configure your client instead`,
    );
  return { options: resolved, client };
}
