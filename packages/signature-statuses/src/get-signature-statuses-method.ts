import { defineMethod, type CallContext, type MethodDefinition } from '@rollup-router/core';
import { agaveParamsError } from './agave-params-error.js';
import {
  getSignatureStatusesParamsSchema,
  getSignatureStatusesResultSchema,
  type GetSignatureStatusesParams,
  type GetSignatureStatusesResult,
} from './generated/schemas.js';
import { resultJson } from './result-json.js';
import type { LookupOptions } from './status-chain.js';

export type Lookup = (
  signatures: readonly string[],
  options: LookupOptions,
) => GetSignatureStatusesResult | Promise<GetSignatureStatusesResult>;

/**
 * One call's lookup options. A class, so `signal` is a getter on the prototype: an object
 * literal with a getter gives every call its own closure and hidden class, which kept each
 * call's object graph alive past the young generation (issue 12).
 */
class CallLookupOptions implements LookupOptions {
  constructor(
    readonly searchTransactionHistory: boolean,
    private readonly ctx: CallContext,
  ) {}

  /** The call's signal is made on first use; most lookups end in memory and never need it. */
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}

/** getSignatureStatuses with Solana's semantics, answered by `lookup`. */
export function getSignatureStatusesMethod(
  lookup: Lookup,
): MethodDefinition<GetSignatureStatusesParams, GetSignatureStatusesResult, unknown, 'getSignatureStatuses'> {
  return defineMethod<
    GetSignatureStatusesParams,
    GetSignatureStatusesResult,
    unknown,
    'getSignatureStatuses'
  >({
    name: 'getSignatureStatuses',
    summary: 'Returns the confirmation status of each signature.',
    description:
      'One entry per requested signature, in request order, duplicates included; null for a signature no source knows. ' +
      'Answered from memory, then the durable store, then the upstream Solana nodes.',
    params: getSignatureStatusesParamsSchema,
    result: getSignatureStatusesResultSchema,
    paramsError: agaveParamsError,
    errorNullOnPathStyle: true,
    handler: ([signatures, config], ctx) => {
      const answer = lookup(
        signatures,
        new CallLookupOptions(config?.searchTransactionHistory === true, ctx),
      );
      return answer instanceof Promise ? answer.then(resultJson) : resultJson(answer);
    },
  });
}
