import {
  defineSubscription,
  noParamsSchema,
  type Schema,
  type SubscriptionDefinition,
} from '@rollup-router/core';
import { AGAVE_INVALID_SUBSCRIPTION_ID } from '@rollup-router/solana';
import {
  accountSubscribeParamsSchema,
  blockSubscribeParamsSchema,
  logsSubscribeParamsSchema,
  programSubscribeParamsSchema,
} from '../generated/schemas.js';
import { normalizedParams } from './normalized-params.js';
import type { Follows, PubsubRelay } from './pubsub-relay.js';
import {
  SUBSCRIPTION_TABLE,
  type NotifiedShape,
  type SubscriptionRoute,
  type TableSubscription,
} from './subscription-table.js';

/** What each subscription takes, and what it notifies, in words for rpc.discover. */
const METHODS: Record<TableSubscription, { readonly params: Schema; readonly summary: string }> = {
  accountSubscribe: {
    params: accountSubscribeParamsSchema,
    summary: "Notifies every change of an account's lamports or data.",
  },
  logsSubscribe: {
    params: logsSubscribeParamsSchema,
    summary: 'Notifies the logs of every transaction that mentions an account (or of every transaction).',
  },
  programSubscribe: {
    params: programSubscribeParamsSchema,
    summary: 'Notifies every change of an account a program owns.',
  },
  slotSubscribe: { params: noParamsSchema, summary: 'Notifies every slot the base chain processes.' },
  rootSubscribe: { params: noParamsSchema, summary: 'Notifies every slot the base chain roots.' },
  blockSubscribe: {
    params: blockSubscribeParamsSchema,
    summary: 'Notifies every block the base chain confirms.',
  },
  slotsUpdatesSubscribe: {
    params: noParamsSchema,
    summary: "Notifies every update of the base chain's slots (first shred, completed, frozen, ...).",
  },
  voteSubscribe: { params: noParamsSchema, summary: 'Notifies every vote the base chain gossips.' },
};

const ROUTES: Record<SubscriptionRoute, string> = {
  base: "Relayed from the base chain's websocket.",
  account:
    "Relayed to the base chain's websocket, and also to the websocket of the ER the account is delegated to while it is delegated (the ER changes with the delegation): notifications of both reach the client, as the Rust Magic Router relays them.",
  mentions:
    "Relayed to the base chain's websocket; a `{mentions: [account]}` filter also to the websocket of the ER the account is delegated to while it is delegated (the ER changes with the delegation): the logs of both reach the client (commits and undelegations land on the base chain).",
  program:
    "Relayed to the base chain's websocket, and also to the websockets of the ERs that hold the program's delegated accounts (their delegation records on the base chain name them, as of the subscription and as new delegations are notified), passing from each ER the accounts delegated to it: see docs/websocket.md for how far this goes.",
};

const SHARED =
  " Params go upstream normalized (config members in one order, unknown members dropped); clients that ask the same share one upstream subscription. Answered once the base chain acknowledged it: its refusal (a method it does not serve included) is the call's error, unchanged.";

const RESULTS: Record<NotifiedShape, Schema> = {
  context: {
    type: 'object',
    required: ['context', 'value'],
    properties: {
      context: {
        type: 'object',
        required: ['slot'],
        properties: { apiVersion: { type: 'string' }, slot: { type: 'integer', minimum: 0 } },
      },
      value: {},
    },
  },
  object: { type: 'object' },
  integer: { type: 'integer', minimum: 0 },
};

/** What a subscription of `route` follows on the ERs, from its params. */
function followsOf(route: SubscriptionRoute, params: readonly unknown[]): Follows {
  switch (route) {
    case 'account':
      return { account: params[0] as string };
    case 'program':
      return { program: params[0] as string };
    case 'mentions': {
      // The schema takes a string ("all", "allWithVotes") or {mentions: [one account]}.
      const filter = params[0] as string | { readonly mentions: readonly [string] };
      return typeof filter === 'string' ? undefined : { account: filter.mentions[0] };
    }
    case 'base':
      return undefined;
  }
}

/** A subscription the router relays, named by its literal type (so `ApiOf` keys it); its params and notifications are Solana's own. */
export type RelayedSubscription = SubscriptionDefinition<unknown[], unknown, unknown, TableSubscription>;

/** Every subscription of the table, each relayed on the one relay. */
export function relayedSubscriptions(relay: PubsubRelay): RelayedSubscription[] {
  return (Object.keys(SUBSCRIPTION_TABLE) as TableSubscription[]).map((subscribe) => {
    const entry = SUBSCRIPTION_TABLE[subscribe];
    const { params: schema, summary } = METHODS[subscribe];
    return defineSubscription<unknown[], unknown, unknown, TableSubscription>({
      subscribe,
      unsubscribe: entry.unsubscribe,
      unknownIdMessage: AGAVE_INVALID_SUBSCRIPTION_ID,
      notification: entry.notification,
      summary,
      description: ROUTES[entry.route] + SHARED,
      params: schema,
      result: RESULTS[entry.notified],
      start: (params, sink, ctx) => {
        const relayed = normalizedParams(schema, params);
        return relay.hold(
          {
            key: `${subscribe}:${JSON.stringify(relayed)}`,
            follows: followsOf(entry.route, relayed),
            subscription: {
              subscribe,
              unsubscribe: entry.unsubscribe,
              notification: entry.notification,
              params: relayed.length === 0 ? undefined : relayed,
            },
            notified: entry.notified,
          },
          { deliver: (result) => sink.notify(result), lose: (reason) => sink.lose(reason) },
          ctx.signal,
        );
      },
    });
  });
}
