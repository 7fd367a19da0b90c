import type { PluginContext } from '@rollup-router/core';
import type { RedisClientLike } from './redis-client-like.js';
import type { ResolvedRedis } from '../options.js';
import { createRedisClient } from './redis-client.js';
import { SharedAffinity } from './redis-affinity.js';
import { RedisLink } from './redis-link.js';
import { RedisStatusLayer } from './redis-status-layer.js';

/**
 * What the plugin shares through Redis: the status layer and the affinity store, over
 * the caller's client or one of its own (connected at start, closed at stop, its outages
 * logged by a RedisLink).
 */
export class SharedTier {
  readonly client: RedisClientLike;
  readonly layer: RedisStatusLayer;
  readonly affinity: SharedAffinity;
  private readonly owned: boolean;
  private link: RedisLink | undefined;

  constructor(redis: ResolvedRedis, maxTracked: number) {
    const { options } = redis;
    this.owned = redis.client === undefined;
    this.client =
      redis.client ??
      createRedisClient({ ...options, url: options.url! }, 'signature-statuses option /redis/url is set');
    this.layer = new RedisStatusLayer(this.client, options.statusTtlSeconds);
    this.affinity = new SharedAffinity(this.client, maxTracked, options.affinityTtlSeconds);
  }

  /** Connects its own client: wrong credentials throw RedisAuthError; Redis down does not stop the start. */
  async start(log: PluginContext['log']): Promise<void> {
    if (!this.owned) return;
    // One link per client, even when the plugin is started again after a stop.
    this.link ??= new RedisLink(this.client, log.child({ part: 'redis' }));
    await this.link.connect();
  }

  async stop(): Promise<void> {
    await this.link?.close();
  }
}
