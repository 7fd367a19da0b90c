import { loadOptionalPackage } from '@rollup-router/core';
import type { RedisClientLike } from './redis-client-like.js';
import type { RedisOptionsResolved } from '../generated/schemas.js';

/** The Redis options with a URL to connect to. */
export type RedisConnectOptions = RedisOptionsResolved & { readonly url: string };

/**
 * An ioredis client that fails fast when Redis is down or slow, so no caller ever waits
 * on it: no offline queue (a command while disconnected fails at once), no retry of a
 * command after a lost connection, a timeout per command, and a connection that is
 * dropped (then reconnected with ioredis's backoff, capped at 5 s) when Redis stops
 * answering for twice that long, so a frozen Redis is soon seen as down. Not connected
 * yet: call connect() (RedisLink.connect does). `neededBy` says what asked for ioredis,
 * for the error when it is not installed.
 */
export function createRedisClient(
  options: RedisConnectOptions,
  neededBy = 'createRedisClient is called',
): RedisClientLike {
  // An optional peer: loaded only when a Redis URL is configured.
  const { Redis } = loadOptionalPackage<typeof import('ioredis')>(import.meta.url, 'ioredis', neededBy);
  return new Redis(options.url, {
    lazyConnect: true,
    keyPrefix: options.keyPrefix,
    commandTimeout: options.commandTimeoutMs,
    socketTimeout: options.commandTimeoutMs * 2,
    connectTimeout: options.connectTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
}

/** Whether commands can be sent now; callers skip Redis otherwise, without waiting. */
export const isReady = (client: RedisClientLike): boolean => client.status === 'ready';

/**
 * A Redis URL fit for logs and printed configs: scheme, host, port and database, with
 * `…@` where a user or password was (core's redactUrl knows only http(s) origins).
 */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    const credentials = u.username !== '' || u.password !== '' ? '…@' : '';
    return `${u.protocol}//${credentials}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
