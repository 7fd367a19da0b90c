import { brand } from './brand.js';
import { ErrorInfo, type ErrorCodeValue } from './codes.js';
import type { DeclaredError } from './plugin.js';

/** The JSON-RPC error object as it goes on the wire. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error a handler throws on purpose: it reaches the caller with its message and data
 * (written by the service's wire error policy: wire-errors.ts).
 * Anything else a handler throws is a bug and becomes -32603 with nothing of it returned.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message?: string, data?: unknown) {
    super(message ?? ErrorInfo[code as ErrorCodeValue]?.message ?? 'Server error');
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  /** Builds an error from the codes table with its standard message. */
  static of(code: ErrorCodeValue, data?: unknown): RpcError {
    return new RpcError(code, ErrorInfo[code].message, data);
  }

  /** Builds an error from a plugin's declared code, with its declared message. */
  static from(declared: DeclaredError, data?: unknown): RpcError {
    return new RpcError(declared.code, declared.message, data);
  }

  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

brand(RpcError, 'RpcError');

/** What schema validation reports: the JSON Pointer of the failing value and the rule it broke. */
export interface ValidationFailure {
  /** JSON Pointer into the request, e.g. `/params/0/3`. */
  path: string;
  /** The JSON Schema keyword that failed, e.g. `maxItems`, `type`, `base58Bytes`. */
  rule: string;
  message: string;
  /** The keyword's parameters as ajv reports them (e.g. `{ limit: 256 }`). */
  params: Record<string, unknown>;
}
