// Type test, checked by `npm run typecheck` (never run): the host's context is typed from
// createRpc's `context` to every handler and guard, without casts, and a method or plugin
// that reads a context does not fit a service that makes none (or another).
import type { IncomingMessage } from 'node:http';
import express from 'express';
import {
  createRpc,
  defineMethod,
  defineMethodFromSchemas,
  definePlugin,
  type CallContext,
  type DispatchOptions,
  type DispatchScope,
  type HostRequest,
} from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';

interface AppContext {
  readonly userId: string;
}
const userOf = (req: IncomingMessage): string => String(req.headers['x-user']);

// A method that reads the context states its type; ctx.host is typed by it.
const whoAmI = defineMethod<undefined, string, AppContext>({
  name: 'whoAmI',
  guard: (ctx) => {
    // @ts-expect-error: userId is a string, not a number
    const id: number = ctx.host.userId;
    void id;
  },
  handler: (_params, ctx) => ctx.host.userId,
});

// @ts-expect-error: the context has no field `user`
defineMethod<undefined, string, AppContext>({ name: 'bad', handler: (_p, ctx) => ctx.host.user });

// From schemas: the context type follows from the handler's annotated ctx.
const sum = defineMethodFromSchemas({
  name: 'sum',
  params: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
  result: { type: 'string' },
  handler: (_params, ctx: CallContext<AppContext>) => ctx.host.userId,
});

// A plain method reads no context: it fits any service.
const ping = defineMethod<undefined, string>({ name: 'ping', handler: () => 'pong' });

// State the context type once, on createRpc (as tRPC's initTRPC.context<Ctx>() does).
const rpc = createRpc<AppContext>({
  context: ({ req }) => ({ userId: userOf(req) }),
  methods: [whoAmI, sum, ping],
  plugins: [definePlugin({ name: 'p', methods: [whoAmI, ping] })],
});
rpc.guard((ctx) => {
  const id: string = ctx.host.userId;
  void id;
  // @ts-expect-error: the guard's context is AppContext
  void ctx.host.tenant;
});

// Or let it follow from the context function (its parameter annotated: an unannotated one
// leaves TypeScript the default, undefined, once methods are given too).
const inferred = createRpc({
  context: async (request: HostRequest) => ({ userId: userOf(request.req) }),
  methods: [whoAmI],
});
inferred.guard((ctx) => void ctx.host.userId.toUpperCase());

// @ts-expect-error: whoAmI reads a context, and this service makes none
createRpc({ methods: [whoAmI] });

// @ts-expect-error: a plugin whose methods read AppContext does not fit a service of another context
createRpc({ context: () => ({ other: 1 }), plugins: [definePlugin({ name: 'q', methods: [whoAmI] })] });

// @ts-expect-error: the context function must make an AppContext
createRpc<AppContext>({ context: () => ({ userId: 1 }), methods: [whoAmI] });

// The Express adapter's own context reads Express's request, and must make the service's type.
expressRpc(rpc, { context: (req) => ({ userId: String(req.get('x-user')) }) });
// @ts-expect-error: the adapter's context must make an AppContext
expressRpc(rpc, { context: () => ({ user: 'x' }) });

// rpc.dispatch takes the context of an embedder's own transport, typed.
void rpc.dispatch('{}', { context: { userId: 'u' } });
// @ts-expect-error: wrong context type for dispatch
void rpc.dispatch('{}', { context: { userId: 2 } });
// Its options' type by name; DispatchScope, its old name, stays one release as a deprecated alias.
const dispatchOptions: DispatchOptions<AppContext> = { requestId: 'r1', context: { userId: 'u' } };
const oldName: DispatchScope<AppContext> = dispatchOptions;
void rpc.dispatch('{}', oldName);

void express;
