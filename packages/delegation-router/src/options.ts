import { validateOptions, type UpstreamCallObserver } from '@rollup-router/core';
import {
  delegationRouterOptionsSchema,
  type DelegationRouterOptions,
  type DelegationRouterOptionsResolved,
} from './generated/schemas.js';
import type { SharedDelegationsClient } from './delegation/shared-delegations.js';
import type { SentObserver } from './methods/send-transaction.js';
import type { RouteTable } from './upstream/er-directory.js';

/** What the plugin needs beside its JSON options: code, not config. */
export interface DelegationRouterHooks {
  /** The route table (the routes plugin's registry): the ERs by identity, their URLs and probe latency. */
  readonly registry: RouteTable;
  /**
   * Told of every transaction sent, with the upstream that took it: give it the
   * signature-statuses plugin's track, so the status is asked of that upstream first.
   */
  readonly onSent?: SentObserver;
  /**
   * Whether the route table takes nodes anyone can register (the on-chain registry,
   * routes.chain). Then, without an allow-list or a pin, the plugin warns at start: any
   * node that answers fast could become everyone's delegation target.
   */
  readonly openRegistry?: boolean;
  /**
   * A Redis client (ioredis, with its keyPrefix) shared by the router's instances: what one
   * reads of a delegation the others take from Redis for `delegations.ttlMs` instead of
   * reading it again. Redis down or a value that does not match its schema is a miss.
   */
  readonly redis?: SharedDelegationsClient;
  /**
   * Once per call to the base chain or an ER, with the upstream's label (`base-chain`,
   * `er:<identity>` for an ER of identity.allow or identity.pin, `er:other` for any other:
   * see UpstreamLabels), the outcome in the statuses plugin's words and the time in ms.
   * Your code: one that throws is logged and ignored.
   */
  readonly onUpstreamCall?: UpstreamCallObserver;
}

export type DelegationRouterPluginOptions = DelegationRouterOptions & DelegationRouterHooks;

type WithBaseChain = DelegationRouterOptionsResolved & {
  readonly baseChain: NonNullable<DelegationRouterOptionsResolved['baseChain']>;
};

export interface ResolvedDelegationRouterOptions {
  readonly json: WithBaseChain;
  readonly hooks: DelegationRouterHooks;
}

export function resolveOptions(options: DelegationRouterPluginOptions): ResolvedDelegationRouterOptions {
  const { registry, onSent, openRegistry, redis, onUpstreamCall, ...json } = options;
  const resolved = validateOptions<DelegationRouterOptionsResolved>(
    delegationRouterOptionsSchema,
    json,
    'delegation router options',
  );
  const { baseChain } = resolved;
  if (baseChain === undefined) {
    throw new TypeError('delegation router options: baseChain (its url at least) is required');
  }
  return {
    json: { ...resolved, baseChain },
    hooks: { registry, onSent, openRegistry, redis, onUpstreamCall },
  };
}
