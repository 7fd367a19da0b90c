import { defineMethod, noParamsSchema, RpcError, type MethodDefinition } from '@rollup-router/core';
import { refusalSummary } from '@rollup-router/solana';
import { DelegationError } from '../errors.js';
import { getIdentityResultSchema, type GetIdentityResult } from '../generated/schemas.js';
import type { ErDirectory, NoErReason } from '../upstream/er-directory.js';

/**
 * getIdentity: the ER this router recommends delegating to. With none available it is
 * an error, not the base chain's identity as the Rust router answers: accounts delegated
 * to a validator that runs no ER could not be used until undelegated.
 */
export function getIdentityMethod(
  ers: ErDirectory,
): MethodDefinition<unknown, GetIdentityResult, unknown, 'getIdentity'> {
  return defineMethod<unknown, GetIdentityResult, unknown, 'getIdentity'>({
    name: 'getIdentity',
    summary: 'Returns the closest available ER: its identity and its URL.',
    description:
      'The pinned ER while it is available; otherwise the available ER of the route table (among the allowed ones) whose health probe answered fastest. -32073 when there is none, data.reason saying whether every node was refused (all_refused, counted by reason in data.refused) or none is available (none_available).',
    params: noParamsSchema,
    result: getIdentityResultSchema,
    handler: () => {
      const er = ers.closest();
      if (!er) throw noErError(ers.whyNone());
      return { identity: er.identity!, fqdn: er.url };
    },
  });
}

/**
 * -32073 with its reason in data, and in the message too when every node was refused:
 * @solana/kit keeps only the message of a -32603, which is how this code reaches it.
 */
function noErError(why: NoErReason): RpcError {
  const { code, message } = DelegationError.NO_ER_AVAILABLE;
  if (why.reason !== 'all_refused') return new RpcError(code, message, why);
  return new RpcError(code, `${message}: every node was refused (${refusalSummary(why.refused)})`, why);
}
