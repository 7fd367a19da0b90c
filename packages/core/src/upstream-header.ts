/**
 * The response header of a single HTTP call that names the upstreams that answered it
 * (CallContext.answeredBy), comma-separated when several did. A batch's calls may each
 * have another, so a batch's response has none: its calls' log lines name theirs.
 */
export const UPSTREAM_HEADER = 'x-rollup-router-upstream';
