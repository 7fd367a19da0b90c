import { defineMethod, type MethodDefinition } from '@rollup-router/core';
import { agaveParamsError } from './agave-params-error.js';
import {
  getSignatureStatusesParamsSchema,
  getSignatureStatusesResultSchema,
  type GetSignatureStatusesParams,
  type GetSignatureStatusesResult,
} from './generated/schemas.js';
import type { LookupOptions } from './lookup.js';

export type Lookup = (
  signatures: readonly string[],
  options: LookupOptions,
) => GetSignatureStatusesResult | Promise<GetSignatureStatusesResult>;

/** getSignatureStatuses with Solana's semantics, answered by `lookup`. */
export function getSignatureStatusesMethod(
  lookup: Lookup,
): MethodDefinition<GetSignatureStatusesParams, GetSignatureStatusesResult> {
  return defineMethod<GetSignatureStatusesParams, GetSignatureStatusesResult>({
    name: 'getSignatureStatuses',
    summary: 'Returns the confirmation status of each signature.',
    description:
      'One entry per requested signature, in request order, duplicates included; null for a signature no source knows. ' +
      'Answered from memory, then the durable store, then the upstream Solana nodes.',
    params: getSignatureStatusesParamsSchema,
    result: getSignatureStatusesResultSchema,
    paramsError: agaveParamsError,
    errorNullOnPathStyle: true,
    handler: ([signatures, config], ctx) =>
      lookup(signatures, {
        searchTransactionHistory: config?.searchTransactionHistory === true,
        // The call's signal is made on first use; most lookups end in memory and never need it.
        get signal() {
          return ctx.signal;
        },
      }),
  });
}
