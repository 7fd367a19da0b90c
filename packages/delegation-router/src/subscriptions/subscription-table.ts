/**
 * Where each standard Solana subscription the router relays is subscribed:
 * - `base`: the base chain's websocket only;
 * - `account`: the base chain's, and the websocket of the ER the account `params[0]` is
 *   delegated to, for as long as it is (the ER changes with the delegation);
 * - `mentions`: as `account` for the account a `{mentions: [account]}` filter names; the
 *   base chain only for the other filters (`all`, `allWithVotes`);
 * - `program`: the base chain's, and the websockets of the ERs that hold the program's
 *   delegated accounts, each passing only the notifications of the accounts delegated to it.
 *
 * `notified` is the shape of a notification's result: `context` (`{context: {slot}, value}`),
 * `object`, or `integer` (rootNotification's slot).
 */
export type SubscriptionRoute = 'base' | 'account' | 'mentions' | 'program';

export type NotifiedShape = 'context' | 'object' | 'integer';

export interface SubscriptionEntry {
  readonly route: SubscriptionRoute;
  readonly unsubscribe: string;
  readonly notification: string;
  readonly notified: NotifiedShape;
}

export const SUBSCRIPTION_TABLE = {
  accountSubscribe: {
    route: 'account',
    unsubscribe: 'accountUnsubscribe',
    notification: 'accountNotification',
    notified: 'context',
  },
  logsSubscribe: {
    route: 'mentions',
    unsubscribe: 'logsUnsubscribe',
    notification: 'logsNotification',
    notified: 'context',
  },
  programSubscribe: {
    route: 'program',
    unsubscribe: 'programUnsubscribe',
    notification: 'programNotification',
    notified: 'context',
  },
  slotSubscribe: {
    route: 'base',
    unsubscribe: 'slotUnsubscribe',
    notification: 'slotNotification',
    notified: 'object',
  },
  rootSubscribe: {
    route: 'base',
    unsubscribe: 'rootUnsubscribe',
    notification: 'rootNotification',
    notified: 'integer',
  },
  blockSubscribe: {
    route: 'base',
    unsubscribe: 'blockUnsubscribe',
    notification: 'blockNotification',
    notified: 'context',
  },
  slotsUpdatesSubscribe: {
    route: 'base',
    unsubscribe: 'slotsUpdatesUnsubscribe',
    notification: 'slotsUpdatesNotification',
    notified: 'object',
  },
  voteSubscribe: {
    route: 'base',
    unsubscribe: 'voteUnsubscribe',
    notification: 'voteNotification',
    notified: 'object',
  },
} as const satisfies Record<string, SubscriptionEntry>;

export type TableSubscription = keyof typeof SUBSCRIPTION_TABLE;
