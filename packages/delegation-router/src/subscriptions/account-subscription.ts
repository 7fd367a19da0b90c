import { defineSubscription, type SubscriptionDefinition } from '@rollup-router/core';
import { AGAVE_INVALID_SUBSCRIPTION_ID } from '@rollup-router/solana';
import { accountSubscribeParamsSchema, type AccountSubscribeParams } from '../generated/schemas.js';
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

/** The config with its members in one order, so that equal configs are one upstream subscription. */
function canonical(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
  );
}

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
      "Relayed to the base chain's websocket, and also to the websocket of the ER the account is delegated to while it is delegated (the ER changes with the delegation): notifications of both reach the client, as the Rust Magic Router relays them. The config (encoding base58, base64, base64+zstd or jsonParsed; commitment; dataSlice) is passed to the upstreams as given. Clients subscribed to the same account with the same config share one upstream subscription.",
    params: accountSubscribeParamsSchema,
    result: NOTIFICATION_RESULT,
    start: ([account, config], sink) => {
      const given = canonical(config ?? {}) as Record<string, unknown>;
      const params = Object.keys(given).length === 0 ? [account] : [account, given];
      return relay.hold(
        `account:${JSON.stringify(params)}`,
        account,
        {
          subscribe: 'accountSubscribe',
          unsubscribe: 'accountUnsubscribe',
          notification: 'accountNotification',
          params,
        },
        (result) => sink.notify(result),
      );
    },
  });
}
