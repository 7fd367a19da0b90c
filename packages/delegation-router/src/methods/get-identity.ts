import { defineMethod, RpcError, type MethodDefinition } from '@rollup-router/core';
import { noParamsSchema } from '@rollup-router/core/internal';
import { DelegationError } from '../errors.js';
import { getIdentityResultSchema, type GetIdentityResult } from '../generated/schemas.js';
import type { ErDirectory } from '../upstream/er-directory.js';

/**
 * getIdentity: the ER this router recommends delegating to. With none available it is
 * an error, not the base chain's identity as the Rust router answers: accounts delegated
 * to a validator that runs no ER could not be used until undelegated.
 */
export function getIdentityMethod(ers: ErDirectory): MethodDefinition<unknown, GetIdentityResult> {
  return defineMethod<unknown, GetIdentityResult>({
    name: 'getIdentity',
    summary: 'Returns the closest available ER: its identity and its URL.',
    description:
      'The pinned ER while it is available; otherwise the available ER of the route table (among the allowed ones) whose health probe answered fastest. -32073 when there is none.',
    params: noParamsSchema,
    result: getIdentityResultSchema,
    handler: () => {
      const er = ers.closest();
      if (!er) throw RpcError.from(DelegationError.NO_ER_AVAILABLE);
      return { identity: er.identity!, fqdn: er.url };
    },
  });
}
