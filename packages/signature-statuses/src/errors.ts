import { defineErrors } from '@rollup-router/core';

/**
 * The error codes getSignatureStatuses answers with when no upstream could, and
 * signatureSubscribe's over its cap, declared on the plugin (checked against every other
 * code when the service is built, published in rpc.discover). An upstream error's `data`
 * names the upstreams (origin only) and their causes.
 */
export const StatusesError = defineErrors({
  UPSTREAM_TIMEOUT: {
    code: -32060,
    message: 'Upstream timeout',
    meaning: 'every upstream that could answer timed out',
  },
  UPSTREAM_UNREACHABLE: {
    code: -32061,
    message: 'Upstream unreachable',
    meaning: 'every upstream that could answer refused or dropped the connection',
  },
  UPSTREAM_BAD_RESPONSE: {
    code: -32062,
    message: 'Upstream bad response',
    meaning:
      'every upstream answered with HTTP 5xx, malformed JSON, or a schema-invalid or wrong-length result',
  },
  NO_UPSTREAM: {
    code: -32063,
    message: 'No upstream available',
    meaning: 'signatures are unknown locally and no upstream is configured or available',
  },
  TOO_MANY_PENDING_SIGNATURES: {
    code: -32064,
    message: 'Too many pending signatures',
    meaning:
      'signatureSubscribe for a signature not already pending while subscriptions.maxPendingSignatures distinct signatures are (data.limit); each is polled upstream every round',
  },
});
