import { validateOptions } from '@rollup-router/core';
import { statusesPluginOptionsSchema, type StatusesPluginOptions } from './generated/schemas.js';

/** Which layer of the answer chain settled a signature. `unknown`: every source answered, none knew it. */
export type LookupLayer = 'memory' | 'store' | 'upstream' | 'unknown';

/** What became of one request to one upstream. */
export type UpstreamCallOutcome = 'ok' | 'rpc_error' | 'timeout' | 'unreachable' | 'bad_response' | 'aborted';

/** Options that are functions, so not JSON and not in the options schema. */
export interface SignatureStatusesHooks {
  /**
   * More upstream URLs, asked at lookup time (the server passes the routes plugin's
   * available nodes). Deduplicated against `upstreams`; these use `upstreamTimeoutMs`.
   */
  readonly extraUpstreams?: () => readonly string[] | Promise<readonly string[]>;
  /** Once per upstream asked (a retry belongs to the same ask). The URL has its path and query hidden. */
  readonly onUpstreamCall?: (url: string, outcome: UpstreamCallOutcome, ms: number) => void;
  /** Once per lookup and layer with how many distinct signatures that layer settled (never with 0). */
  readonly onLookup?: (layer: LookupLayer, count: number) => void;
}

export type SignatureStatusesOptions = StatusesPluginOptions & SignatureStatusesHooks;

/** The options after schema validation: every member with a schema default is present. */
export type ResolvedOptions = Required<Omit<StatusesPluginOptions, 'memory' | 'store' | 'upstreams'>> & {
  readonly memory: Required<NonNullable<StatusesPluginOptions['memory']>>;
  readonly store: NonNullable<StatusesPluginOptions['store']>;
  readonly upstreams: NonNullable<StatusesPluginOptions['upstreams']>;
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
