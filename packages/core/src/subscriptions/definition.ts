import type { Logger } from 'pino';
import type { CallContext } from '../call-context.js';
import type { RpcError, ValidationFailure } from '../errors.js';
import type { Schema } from '../method.js';
import type { SerializedResult } from './serialized-result.js';

/** What a subscription's `start` gets to talk to its subscriber. */
export interface SubscriptionSink<R> {
  /** The integer id the subscribe call answers with (Solana style). */
  readonly id: number;
  /**
   * Sends one `<notification>` message with this result to the subscriber. A
   * SerializedResult is sent as its text, serialized once for every subscriber it is
   * given to (each gets its own subscription id spliced in).
   */
  notify(result: R | SerializedResult): void;
  /** Ends the subscription from the plugin's side (Solana's one-shot subscriptions end after their notification). */
  end(): void;
  /**
   * Ends the subscription because what fed it is gone for good (an upstream that no longer
   * serves it). JSON-RPC's pub/sub has no message saying so, and a client left waiting
   * would never learn it: the subscriber's socket is closed with 1011 and `reason`
   * (at most 123 bytes of UTF-8), which ends its other subscriptions too.
   */
  lose(reason: string): void;
  /** A pino child logger bound to the subscription's method and id. */
  readonly log: Logger;
}

/** What stops a subscription; called exactly once. */
export type StopSubscription = () => void;

/**
 * A subscription a plugin serves over persistent connections (WebSocket), in the pub/sub
 * shape Solana's and Ethereum's nodes use: `<subscribe>` answers an integer id,
 * notifications are
 * `{"jsonrpc":"2.0","method":<notification>,"params":{"result":...,"subscription":id}}`,
 * `<unsubscribe>` answers true, or -32602 with `unknownIdMessage`.
 */
export interface SubscriptionDefinition<P = unknown, R = unknown, C = unknown, S extends string = string> {
  /** The subscribe method, e.g. `signatureSubscribe`; its literal type keys the subscription in `ApiOf`. */
  readonly subscribe: S;
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
   * subscription opens, with the call's context (`ctx.host`: the tenant the host made of
   * the connection): throw an RpcError to refuse it (the call answers that error and
   * nothing opens), e.g. over a limit of the plugin's own or of the tenant's.
   */
  readonly admit?: (params: P, ctx: CallContext<C>) => void;
  /**
   * Starts the subscription, within the subscribe call, once it is admitted and counted.
   * Returns what stops it, or a promise of it: the call is answered (with the id) only
   * once that promise resolves, e.g. when an upstream acknowledged the subscription; a
   * rejection is the call's error (an RpcError as it is) and nothing stays open. A call
   * that ends first (its deadline, the socket closing) stops it as soon as it resolves.
   * Notifications sent before the answer wait for it, so none overtakes the id. The stop
   * is called exactly once, whichever way the subscription ends (unsubscribe,
   * `sink.end()`, `sink.lose()`, the socket closing).
   */
  readonly start: (
    params: P,
    sink: SubscriptionSink<R>,
    ctx: CallContext<C>,
  ) => StopSubscription | Promise<StopSubscription>;
}

/** A subscription of any params, result and context types (params are contravariant: `never` accepts all). */
export type AnySubscriptionDefinition = SubscriptionDefinition<never, unknown, never>;

/**
 * Declares a subscription; the types follow from the caller's (e.g. generated from `schemas/`).
 * Its subscribe method's literal type is kept when the types are inferred (for `ApiOf`); a
 * caller who states them passes it fourth to keep it: `defineSubscription<P, R, unknown, 'tickSubscribe'>`.
 */
export function defineSubscription<P, R, C = unknown, const S extends string = string>(
  definition: SubscriptionDefinition<P, R, C, S>,
): SubscriptionDefinition<P, R, C, S> {
  return definition;
}
