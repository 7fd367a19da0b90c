import { compileSchema, type PluginContext } from '@rollup-router/core';
import type { RedisClientLike } from './redis-client-like.js';
import { signatureStatusSchema } from '../generated/schemas.js';
import type { LearnedStatus, StatusLayer } from '../layer.js';
import { finalizedStatus, statusMatchesErr, type SignatureStatus } from '../status.js';
import { isReady } from './redis-client.js';

const validateStatus = compileSchema<SignatureStatus>(signatureStatusSchema);

/** The key of a signature's finalized status (after the client's keyPrefix). */
export const statusKey = (signature: string): string => `status:${signature}`;

/**
 * What Redis holds at a status key, if it is a finalized status: anything else (not JSON,
 * not a status, a status whose `status` and `err` disagree, not finalized) is a miss, so
 * a key written by something else never reaches a client.
 */
export function parseFinalized(text: string | null): SignatureStatus | undefined {
  if (text === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!validateStatus(value) || value.confirmationStatus !== 'finalized') return undefined;
  if (!statusMatchesErr(value.status, value.err)) return undefined;
  return finalizedStatus(value.slot, value.err);
}

/**
 * The shared link of the chain: finalized statuses in Redis, so what one instance learned
 * every instance serves. Finalized statuses never change, so a key is only ever written
 * with the same value and needs no invalidation; it expires after `ttlSeconds` to bound
 * Redis's memory. Redis down or slow (each command has a timeout) is a miss: the chain
 * goes on to the upstreams, and what they teach is written again once Redis is back.
 */
export class RedisStatusLayer implements StatusLayer {
  readonly name = 'redis';
  private log: PluginContext['log'] | undefined;

  constructor(
    private readonly client: RedisClientLike,
    private readonly ttlSeconds: number,
  ) {}

  find(
    signatures: readonly string[],
    found: Map<string, SignatureStatus | null>,
  ): readonly string[] | Promise<readonly string[]> {
    // Down: not even a failing command; the lookup goes on at once.
    if (!isReady(this.client)) return signatures;
    return this.client.mget(signatures.map(statusKey)).then(
      (texts) => {
        const missing: string[] = [];
        signatures.forEach((signature, i) => {
          const status = parseFinalized(texts[i] ?? null);
          if (status) found.set(signature, status);
          else missing.push(signature);
        });
        return missing;
      },
      (err: unknown) => {
        this.log?.debug({ err }, 'redis status lookup failed; asking the next layer');
        return signatures;
      },
    );
  }

  /** Redis keeps finalized statuses only, like the store: the others may still change. */
  learn(statuses: readonly LearnedStatus[]): void {
    if (!isReady(this.client)) return;
    const pipeline = this.client.pipeline();
    let count = 0;
    for (const [signature, status] of statuses) {
      if (status.confirmationStatus !== 'finalized') continue;
      pipeline.set(statusKey(signature), JSON.stringify(status), 'EX', this.ttlSeconds);
      count += 1;
    }
    if (count === 0) return;
    pipeline.exec().catch((err: unknown) => {
      // The answer is still right; only its sharing failed.
      this.log?.debug({ err }, 'could not write finalized statuses to redis');
    });
  }

  start(log: PluginContext['log']): void {
    this.log = log;
  }
}
