import { defineSubscription, type SubscriptionDefinition } from '@rollup-router/core';
import { signatureSubscribeParamsSchema, type SignatureSubscribeParams } from './generated/schemas.js';
import type { SignatureNotification, SignatureWatch } from './signature-watch.js';
import { AGAVE_INVALID_SUBSCRIPTION_ID } from '@rollup-router/solana';

const NOTIFICATION_RESULT = {
  type: 'object',
  required: ['context', 'value'],
  properties: {
    context: {
      type: 'object',
      required: ['apiVersion', 'slot'],
      properties: { apiVersion: { type: 'string' }, slot: { type: 'integer', minimum: 0 } },
    },
    value: { type: 'object', required: ['err'], properties: { err: true } },
  },
} as const;

/**
 * signatureSubscribe with Solana's semantics: one notification when the signature reaches
 * the commitment (finalized by default), then the subscription ends by itself.
 */
export function signatureSubscription(
  watch: SignatureWatch,
): SubscriptionDefinition<SignatureSubscribeParams, SignatureNotification, unknown, 'signatureSubscribe'> {
  return defineSubscription<SignatureSubscribeParams, SignatureNotification, unknown, 'signatureSubscribe'>({
    subscribe: 'signatureSubscribe',
    unsubscribe: 'signatureUnsubscribe',
    unknownIdMessage: AGAVE_INVALID_SUBSCRIPTION_ID,
    notification: 'signatureNotification',
    summary: 'Notifies once when a transaction signature reaches a commitment level.',
    description:
      'Relayed to the websocket of every configured upstream, the first notification winning; polled through the answer chain (memory, store, upstreams) while an upstream does not relay it. A signature already at the level is notified at once.',
    params: signatureSubscribeParamsSchema,
    result: NOTIFICATION_RESULT,
    admit: ([signature]) => watch.admit(signature),
    start: ([signature, config], sink) =>
      watch.watch(
        signature,
        config?.commitment ?? 'finalized',
        (result) => {
          sink.notify(result);
          sink.end();
        },
        () => sink.end(),
      ),
  });
}
