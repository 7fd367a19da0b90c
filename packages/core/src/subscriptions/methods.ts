import { CallContextImpl } from '../call.js';
import { ErrorCode } from '../codes.js';
import type { CallContext } from '../call-context.js';
import { RpcError } from '../errors.js';
import { defineMethod, type AnyMethodDefinition } from '../method.js';
import type { AnySubscriptionDefinition } from './definition.js';

/** The unsubscribe's text for an id the connection does not hold, unless the definition gives its own. */
const UNKNOWN_ID = 'Unknown subscription id';

const UNSUBSCRIBE_PARAMS = {
  type: 'array',
  minItems: 1,
  maxItems: 1,
  prefixItems: [{ title: 'Subscription id', type: 'integer', minimum: 0 }],
} as const;

/** The connection a call came over; a subscription over HTTP has nowhere to send its notifications. */
function sessionOf(ctx: CallContext, method: string) {
  const session = ctx instanceof CallContextImpl ? ctx.session : undefined;
  if (session === undefined) {
    throw RpcError.of(
      ErrorCode.METHOD_NOT_FOUND,
      `${method} is served over WebSocket only: connect with ws:// (or wss://) to the same endpoint`,
    );
  }
  return session;
}

/** A subscription's two methods, dispatched like any other (validation, errors, logging, metrics). */
export function subscriptionMethods(definition: AnySubscriptionDefinition): AnyMethodDefinition[] {
  const subscribe = defineMethod<unknown, number>({
    name: definition.subscribe,
    summary: definition.summary,
    description:
      `${definition.description ?? ''} WebSocket only; answers the subscription id; notifications are ${definition.notification}.`.trim(),
    params: definition.params,
    result: { type: 'integer', minimum: 0 },
    paramsError: definition.paramsError,
    handler: (params, ctx) => {
      const session = sessionOf(ctx, definition.subscribe);
      // A notification is answered nothing: its client could never learn the id to end it.
      if (ctx instanceof CallContextImpl && ctx.notification) {
        throw new RpcError(
          ErrorCode.INVALID_REQUEST,
          undefined,
          `${definition.subscribe} sent as a notification (no id) opens nothing: send it with an id to learn the subscription id`,
        );
      }
      definition.admit?.(params as never, ctx as CallContext<never>);
      return session.open(definition, params, ctx);
    },
  });
  const unknownId = definition.unknownIdMessage ?? UNKNOWN_ID;
  const unsubscribe = defineMethod<[number], boolean>({
    name: definition.unsubscribe,
    summary: `Ends a ${definition.subscribe} subscription.`,
    description: `WebSocket only; answers true, or ${ErrorCode.INVALID_PARAMS} "${unknownId}" for an id this connection does not hold.`,
    params: UNSUBSCRIBE_PARAMS,
    result: { type: 'boolean' },
    handler: ([id], ctx) => {
      if (sessionOf(ctx, definition.unsubscribe).unsubscribe(id, definition)) return true;
      throw new RpcError(ErrorCode.INVALID_PARAMS, unknownId);
    },
  });
  return [subscribe as AnyMethodDefinition, unsubscribe as AnyMethodDefinition];
}
