import { defineMethod, RpcError, type MethodDefinition, type PluginContext } from '@rollup-router/core';
import { DelegationError } from '../errors.js';
import { sendTransactionParamsSchema, type SendTransactionParams } from '../generated/schemas.js';
import type { Routing } from '../routing.js';
import { decodeWireTransaction, type RoutedTransaction } from '../transaction/decode-transaction.js';
import type { LookupTables } from '../transaction/lookup-tables.js';
import { feePayerSigned } from '../transaction/verify-signature.js';
import type { Origins } from '../upstream/origins.js';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';

type Logger = PluginContext['log'];

/** Told of every transaction an upstream took, with its signature (the statuses plugin's track). */
export type SentObserver = (signature: string, upstream: Upstream) => void;

/**
 * sendTransaction routed by delegation: to the ER every delegated writable account of
 * the transaction is delegated to, or to the base chain when none is. The params go to
 * that upstream as given, and its answer (the signature, or its own error) comes back
 * unchanged.
 *
 * Where a transaction went is remembered for every client (getTransaction and its status
 * are asked there first), so it is remembered only under the transaction's own signature:
 * an upstream that answers another signature is a bad reply, never remembered. A vetted ER
 * is trusted to have checked the fee payer's signature; for any other the router checks it
 * itself, so that no one can copy a base-chain transaction's signature onto a transaction
 * of their own ER and make that ER the one asked about it.
 */
export function sendTransactionMethod(
  routing: Routing,
  caller: UpstreamCaller,
  tables: LookupTables,
  sent: Origins,
  onSent: SentObserver | undefined,
  log: () => Logger | undefined,
): MethodDefinition<SendTransactionParams, string, unknown, 'sendTransaction'> {
  const tookIt = (tx: RoutedTransaction, target: Upstream): void => {
    if (target.identity !== undefined && !target.vetted && !feePayerSigned(tx.signed)) {
      log()?.warn(
        { upstream: target.name, signature: tx.signature },
        'an ER took a transaction whose fee payer signature does not verify; not remembered',
      );
      return;
    }
    sent.remember(tx.signature, target);
    onSent?.(tx.signature, target);
  };
  return defineMethod<SendTransactionParams, string, unknown, 'sendTransaction'>({
    name: 'sendTransaction',
    summary: 'Sends a signed transaction to the chain that holds its writable accounts.',
    description:
      'Legacy and v0 transactions; the writable accounts are the static ones plus those of v0 lookup tables (read from the base chain). Accounts delegated to different ERs are refused (-32072).',
    params: sendTransactionParamsSchema,
    result: { type: 'string' },
    handler: async (params, ctx) => {
      const [wire, config] = params;
      const decoded = decodeWireTransaction(wire, config?.encoding ?? 'base58');
      if (!decoded.ok) throw RpcError.from(DelegationError.INVALID_TRANSACTION, { reason: decoded.reason });
      const { tx } = decoded;
      const target = await routing.targetOf(await tables.writableOf(tx));
      // Not the call's signal: a transaction handed to an upstream may land, so it is followed
      // to its answer (the upstream timeout bounds it) and tracked, even when its client left
      // or the call's deadline passed: its status is then asked of the upstream that took it.
      // A write: never hedged, sent to another base-chain provider only when the first cannot
      // have taken it, and "already processed" from that one is the transaction's signature.
      const signature = await caller.call<unknown>(target, 'sendTransaction', params, {
        write: true,
        answering: ctx,
      });
      if (signature !== tx.signature) {
        throw caller.badReply(
          target,
          'sendTransaction',
          `answered ${typeof signature === 'string' ? signature : typeof signature}, not the transaction's signature ${tx.signature}`,
        );
      }
      tookIt(tx, target);
      return signature;
    },
  });
}
