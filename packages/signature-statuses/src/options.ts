import { validateOptions } from '@rollup-router/core';
import type { StatusesObservers } from './events.js';
import { statusesPluginOptionsSchema, type StatusesPluginOptions } from './generated/schemas.js';

/** Options that are functions, so not JSON and not in the options schema. */
export interface SignatureStatusesHooks extends StatusesObservers {
  /**
   * More upstream URLs, asked at lookup time (the server passes the routes plugin's
   * available nodes). Deduplicated against `upstreams`; these use `upstreamTimeoutMs`.
   */
  readonly extraUpstreams?: () => readonly string[] | Promise<readonly string[]>;
}

export type SignatureStatusesOptions = StatusesPluginOptions & SignatureStatusesHooks;

/** The options after schema validation: every member with a schema default is present. */
export type ResolvedOptions = Required<
  Omit<StatusesPluginOptions, 'memory' | 'store' | 'upstreams' | 'subscriptions'>
> & {
  readonly memory: Required<NonNullable<StatusesPluginOptions['memory']>>;
  readonly store: NonNullable<StatusesPluginOptions['store']>;
  readonly upstreams: NonNullable<StatusesPluginOptions['upstreams']>;
  readonly subscriptions: Required<NonNullable<StatusesPluginOptions['subscriptions']>>;
};

/** Splits the function options off, validates the rest against its schema and fills the defaults. */
export function resolveOptions(options: SignatureStatusesOptions = {}): {
  json: ResolvedOptions;
  hooks: SignatureStatusesHooks;
} {
  const { extraUpstreams, onUpstreamCall, onLookup, ...json } = options;
  return {
    json: validateOptions<ResolvedOptions>(statusesPluginOptionsSchema, json, 'signature-statuses options'),
    hooks: { extraUpstreams, onUpstreamCall, onLookup },
  };
}
