import { defineSubscription, type SubscriptionDefinition } from '@rollup-router/core';
import { AGAVE_INVALID_SUBSCRIPTION_ID } from '@rollup-router/solana';
import { noParamsSchema } from '@rollup-router/core/internal';
import type { PubsubRelay } from './pubsub-relay.js';

const NOTIFICATION_RESULT = {
  type: 'object',
  required: ['parent', 'root', 'slot'],
  properties: {
    parent: { type: 'integer', minimum: 0 },
    root: { type: 'integer', minimum: 0 },
    slot: { type: 'integer', minimum: 0 },
  },
} as const;

/** The one upstream subscription every slotSubscribe client shares. */
const SLOT_KEY = 'slot';

/** slotSubscribe relayed from the base chain's websocket: its notifications as it sends them. */
export function slotSubscription(relay: PubsubRelay): SubscriptionDefinition<[], unknown> {
  return defineSubscription<[], unknown>({
    subscribe: 'slotSubscribe',
    unsubscribe: 'slotUnsubscribe',
    unknownIdMessage: AGAVE_INVALID_SUBSCRIPTION_ID,
    notification: 'slotNotification',
    summary: 'Notifies every slot the base chain processes.',
    description:
      "Relayed from the base chain's websocket ({parent, root, slot} as it sends them); every client shares one upstream subscription. Answered once the base chain acknowledged it: its refusal is the call's error.",
    params: noParamsSchema,
    result: NOTIFICATION_RESULT,
    start: (_params, sink, ctx) =>
      relay.hold(
        SLOT_KEY,
        undefined,
        {
          subscribe: 'slotSubscribe',
          unsubscribe: 'slotUnsubscribe',
          notification: 'slotNotification',
          params: undefined,
        },
        { deliver: (result) => sink.notify(result), lose: (reason) => sink.lose(reason) },
        ctx.signal,
      ),
  });
}
