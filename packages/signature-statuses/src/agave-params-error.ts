import { ErrorCode, RpcError, type ValidationFailure } from '@rollup-router/core';

/**
 * Agave's own texts for the two param errors clients match on (captured from a real
 * validator): too many signatures, and a signature that is not base58 of 64 bytes.
 * Every other failure keeps the standard -32602 with the failing path and rule.
 */
export function agaveParamsError(failure: ValidationFailure): RpcError | undefined {
  if (failure.rule === 'maxItems' && failure.path === '/params/0') {
    return new RpcError(
      ErrorCode.INVALID_PARAMS,
      `Too many inputs provided; max ${String(failure.params.limit)}`,
    );
  }
  if (failure.rule === 'base58Bytes' && failure.path.startsWith('/params/0/')) {
    return new RpcError(ErrorCode.INVALID_PARAMS, `Invalid param: ${String(failure.params.reason)}`);
  }
  return undefined;
}
