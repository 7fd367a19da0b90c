import { defineSubscription, type SubscriptionDefinition } from '@rollup-router/core';
import { AGAVE_INVALID_SUBSCRIPTION_ID } from '@rollup-router/solana';
import { accountSubscribeParamsSchema, type AccountSubscribeParams } from '../generated/schemas.js';
import { normalizedAccountParams } from './account-subscribe-params.js';
import type { PubsubRelay } from './pubsub-relay.js';

const NOTIFICATION_RESULT = {
  type: 'object',
  required: ['context', 'value'],
  properties: {
    context: {
      type: 'object',
      required: ['slot'],
      properties: { apiVersion: { type: 'string' }, slot: { type: 'integer', minimum: 0 } },
    },
    value: { type: ['object', 'null'] },
  },
} as const;

/**
 * accountSubscribe relayed as MagicBlock's Rust router relays it: from the base chain, and
 * also from the ER the account is delegated to while it is (both notify the client); the
 * ER changes as the delegation does. The upstream's notifications reach the client as
 * sent, re-addressed to its subscription id.
 */
export function accountSubscription(
  relay: PubsubRelay,
): SubscriptionDefinition<AccountSubscribeParams, unknown> {
  return defineSubscription<AccountSubscribeParams, unknown>({
    subscribe: 'accountSubscribe',
    unsubscribe: 'accountUnsubscribe',
    unknownIdMessage: AGAVE_INVALID_SUBSCRIPTION_ID,
    notification: 'accountNotification',
    summary: "Notifies every change of an account's lamports or data.",
    description:
      "Relayed to the base chain's websocket, and also to the websocket of the ER the account is delegated to while it is delegated (the ER changes with the delegation): notifications of both reach the client, as the Rust Magic Router relays them. The config (encoding base58, base64, base64+zstd or jsonParsed; commitment; dataSlice; minContextSlot) is passed to the upstreams with its members in one order, unknown members dropped. Clients subscribed to the same account with the same config share one upstream subscription. Answered once the base chain acknowledged the subscription: its refusal is the call's error.",
    params: accountSubscribeParamsSchema,
    result: NOTIFICATION_RESULT,
    start: (params, sink, ctx) => {
      const relayed = normalizedAccountParams(params);
      return relay.hold(
        `account:${JSON.stringify(relayed)}`,
        params[0],
        {
          subscribe: 'accountSubscribe',
          unsubscribe: 'accountUnsubscribe',
          notification: 'accountNotification',
          params: relayed,
        },
        { deliver: (result) => sink.notify(result), lose: (reason) => sink.lose(reason) },
        ctx.signal,
      );
    },
  });
}
