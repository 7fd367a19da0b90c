import { isDeepStrictEqual } from 'node:util';
import { inSchemaOrder } from '@rollup-router/core';
import { COMMITMENT_RANK } from '@rollup-router/solana';
import { signatureStatusSchema, type SignatureStatus } from './generated/schemas.js';

export type { SignatureStatus };
export type ConfirmationStatus = SignatureStatus['confirmationStatus'];
export type TransactionError = Exclude<SignatureStatus['err'], null>;

/** Whether `a` is further along than `b`: a higher commitment level wins, then a higher slot. */
export function isMoreAdvanced(a: SignatureStatus, b: SignatureStatus): boolean {
  const ra = COMMITMENT_RANK[a.confirmationStatus];
  const rb = COMMITMENT_RANK[b.confirmationStatus];
  return ra !== rb ? ra > rb : a.slot > b.slot;
}

/**
 * The one rule the schema cannot state: `status` carries the same error as `err`.
 * Upstream answers and import lines that break it are rejected.
 */
export function statusMatchesErr(status: SignatureStatus['status'], err: SignatureStatus['err']): boolean {
  return err === null ? 'Ok' in status : 'Err' in status && isDeepStrictEqual(status.Err, err);
}

// The schema lists the members in the validator's (alphabetical) order.
const inWireOrder = inSchemaOrder<SignatureStatus>(signatureStatusSchema);

/** A status in the wire's member order; `status` is derived from `err`, so the two always agree. */
export function orderedStatus(
  confirmationStatus: ConfirmationStatus,
  confirmations: number | null,
  err: TransactionError | null,
  slot: number,
): SignatureStatus {
  return inWireOrder({
    confirmationStatus,
    confirmations,
    err,
    slot,
    status: err === null ? { Ok: null } : { Err: err },
  });
}

/** A finalized status as the store keeps it: only the slot and the error vary. */
export const finalizedStatus = (slot: number, err: TransactionError | null): SignatureStatus =>
  orderedStatus('finalized', null, err, slot);

/** A copy of an upstream's status in the validator's key order (other nodes write them in any order). */
export const normalizedStatus = (s: SignatureStatus): SignatureStatus =>
  orderedStatus(s.confirmationStatus, s.confirmations, s.err, s.slot);
