import type { Logger } from 'pino';
import type { RpcError, ValidationFailure } from '../errors.js';
import type { Schema } from '../method.js';

/** What a subscription's `start` gets to talk to its subscriber. */
export interface SubscriptionSink<R> {
  /** The integer id the subscribe call answered with (Solana style). */
  readonly id: number;
  /** Sends one `<notification>` message with this result to the subscriber. */
  notify(result: R): void;
  /** Ends the subscription from the plugin's side (Solana's one-shot subscriptions end after their notification). */
  end(): void;
  /** A pino child logger bound to the subscription's method and id. */
  readonly log: Logger;
}

/**
 * A subscription a plugin serves over persistent connections (WebSocket), in the pub/sub
 * shape Solana's and Ethereum's nodes use: `<subscribe>` answers an integer id,
 * notifications are
 * `{"jsonrpc":"2.0","method":<notification>,"params":{"result":...,"subscription":id}}`,
 * `<unsubscribe>` answers true, or -32602 with `unknownIdMessage`.
 */
export interface SubscriptionDefinition<P = unknown, R = unknown> {
  /** The subscribe method, e.g. `signatureSubscribe`. */
  readonly subscribe: string;
  /** The unsubscribe method, e.g. `signatureUnsubscribe`. */
  readonly unsubscribe: string;
  /** The notification's method, e.g. `signatureNotification`. */
  readonly notification: string;
  readonly summary?: string;
  readonly description?: string;
  /** Schema of the subscribe call's whole `params` member (failures are -32602 with the path and rule). */
  readonly params?: Schema;
  /** Schema of a notification's `result`, published by rpc.discover. */
  readonly result?: Schema;
  readonly paramsError?: (failure: ValidationFailure) => RpcError | undefined;
  /**
   * The -32602 message of an unsubscribe naming an id this connection does not hold
   * (its node's own words: Agave's for a Solana subscription). Default "Unknown subscription id".
   */
  readonly unknownIdMessage?: string;
  /**
   * Asked within the subscribe call, after its params are validated and before the
   * subscription opens: throw an RpcError to refuse it (the call answers that error and
   * nothing opens), e.g. over a limit of the plugin's own.
   */
  readonly admit?: (params: P) => void;
  /**
   * Starts delivering, once the subscribe call's answer has been sent (so a notification
   * due at once never overtakes the id). Returns what stops it; it is called exactly once,
   * whichever way the subscription ends (unsubscribe, `sink.end()`, the socket closing).
   */
  readonly start: (params: P, sink: SubscriptionSink<R>) => () => void;
}

/** A subscription of any params and result types (params are contravariant: `never` accepts all). */
export type AnySubscriptionDefinition = SubscriptionDefinition<never, unknown>;

/** Declares a subscription; the types follow from the caller's (e.g. generated from `schemas/`). */
export function defineSubscription<P, R>(
  definition: SubscriptionDefinition<P, R>,
): SubscriptionDefinition<P, R> {
  return definition;
}
