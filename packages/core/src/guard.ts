import type { CallContext } from './call-context.js';

/**
 * Decides whether one call may run: return to admit it, throw an RpcError to refuse it
 * (the caller gets that error under the call's id, as from a handler). It runs once per
 * call, each call of a batch included, before the params are validated: `params` are the
 * call's raw params (unknown), so a refused caller learns nothing of the method's schema,
 * and a method that does not exist passes through the service's guards like any other
 * (`ctx.method` names it). `ctx.host` is the host's context (createRpc's `context`).
 */
export type Guard<C = unknown> = (ctx: CallContext<C>, params: unknown) => void | Promise<void>;
