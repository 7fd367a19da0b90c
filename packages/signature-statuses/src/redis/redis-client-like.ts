/**
 * What the plugin, RedisLink and the server call on a Redis client: an ioredis client fits
 * as it is. Typed here by shape, so that the package's declarations name no type of
 * ioredis, an optional peer (a project without it type-checks with skipLibCheck off).
 */
export interface RedisClientLike {
  /** ioredis's connection state: commands are sent only when it is 'ready'. */
  readonly status: string;
  connect(): Promise<void>;
  /** QUIT: closes once the pending replies have arrived. */
  quit(): Promise<unknown>;
  /** Closes at once, without waiting for pending replies. */
  disconnect(): void;
  on(event: 'ready' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  /** One value per key, in order; null where there is none. */
  mget(keys: string[]): Promise<(string | null)[]>;
  /** Statuses and affinity expire in seconds. */
  set(key: string, value: string, expiry: 'EX', seconds: number): Promise<unknown>;
  /** The delegation router's shared reads, on the same client in the server, expire in milliseconds. */
  set(key: string, value: string, expiry: 'PX', milliseconds: number): Promise<unknown>;
  /** Commands sent together, in one round trip. */
  pipeline(): RedisPipelineLike;
}

/** The commands the plugin queues on a pipeline. */
export interface RedisPipelineLike {
  set(key: string, value: string, expiry: 'EX', seconds: number): unknown;
  /** Sends what was queued. */
  exec(): Promise<unknown>;
}
