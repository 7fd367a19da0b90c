import { defineErrors } from '@rollup-router/core';

/**
 * The error codes of the delegation router, declared on the plugin (checked against every
 * other code when the service is built, published in rpc.discover). The messages of
 * UNKNOWN_ER_NODE and CONFLICTING_DELEGATIONS are the Rust Magic Router's, so a client
 * matching on them sees the same text. An upstream's own error is never one of these: it
 * is passed through unchanged.
 */
export const DelegationError = defineErrors({
  UNKNOWN_ER_NODE: {
    code: -32070,
    message: 'account has been delegated to unknown ER node',
    meaning:
      'an account is delegated to an ER validator this router may not use: the route table does not list it (data.reason not_listed) or delegation.identity.allow leaves it out (not_allowed); the message ends with its identity, data.identity names it',
  },
  UPSTREAM_UNAVAILABLE: {
    code: -32071,
    message: 'Upstream unavailable',
    meaning:
      'the base chain or the ER chosen for the call did not answer: data.upstream names it (base-chain, er:<identity>), data.kind says how (timeout, unreachable, bad_reply, aborted); the details are in the log',
  },
  CONFLICTING_DELEGATIONS: {
    code: -32072,
    message: 'transaction contains accounts that were delegated to different ER nodes',
    meaning:
      'the writable accounts of a transaction are delegated to more than one ER; data lists them by ER',
  },
  NO_ER_AVAILABLE: {
    code: -32073,
    message: 'No ER node available',
    meaning:
      'getIdentity: the route table lists no available ER (or none the allow-list or pin accepts); delegating to the base chain identity instead would strand the accounts. data.reason is all_refused when every node was refused (an http:// registry record without routes.allowInsecure, a node outside delegation.identity.allow), with data.refused counting them by reason and the message ending with those counts, else none_available',
  },
  INVALID_TRANSACTION: {
    code: -32074,
    message: 'Invalid transaction',
    meaning:
      'sendTransaction, simulateTransaction, getFeeForMessage: the wire transaction or message does not decode (bad base58/base64, not a legacy or v0 transaction); data says why',
  },
  LOOKUP_TABLE_NOT_FOUND: {
    code: -32075,
    message: 'Address lookup table not found',
    meaning:
      'sendTransaction: a v0 transaction names a lookup table the base chain does not hold; data names it',
  },
  REPLY_TOO_LARGE: {
    code: -32076,
    message: 'Upstream reply too large',
    meaning:
      "the upstream's answer passed this method's reply cap (delegation.maxReplyBytes); data names the upstream, the method and the cap",
  },
  TOO_MANY_DELEGATED: {
    code: -32077,
    message: 'Too many delegated accounts',
    meaning:
      "getProgramAccounts: more of the program's accounts are delegated than delegation.programAccounts.maxDelegated lets one call read from their ERs; data names the program, how many are delegated and the cap. No partial list is served: the base chain's alone lacks the delegated accounts",
  },
});
