// Type test, checked by `npm run typecheck` (never run): a client typed by the server's
// plugins and methods through ApiOf, with no hand-written map (issue 39, item 3).
import {
  createRpc,
  defineMethod,
  definePlugin,
  defineSubscription,
  type AnyMethodDefinition,
  type AnySubscriptionDefinition,
  type SubscriptionSink,
} from '@rollup-router/core';
import { createClient, type ApiOf } from '@rollup-router/core/client';
import { mySum } from './types.client.js';

// The server's side: its plugins and its own methods, types inferred from their definitions
// (mySum, params and result from its schemas, is types.client.ts's).
const echo = defineMethod({ name: 'echo', handler: ([text]: [string]) => text.length });
// Types stated, the name passed fourth to keep it.
const getNames = defineMethod<undefined, string[], unknown, 'getNames'>({
  name: 'getNames',
  handler: () => ['a'],
});
// A method whose name is only `string` (built at run time) cannot be keyed: it is left out.
const dynamic: AnyMethodDefinition = { name: `dyn${Date.now()}`, handler: () => 1 };

// Subscriptions: types inferred from `start`, or stated with the subscribe method passed fourth.
const ticks = defineSubscription({
  subscribe: 'tickSubscribe',
  unsubscribe: 'tickUnsubscribe',
  notification: 'tickNotification',
  start: ({ everyMs }: { everyMs: number }, sink: SubscriptionSink<{ tick: number }>) => {
    const timer = setInterval(() => sink.notify({ tick: Date.now() }), everyMs);
    return () => clearInterval(timer);
  },
});
const names = defineSubscription<[prefix: string], string, unknown, 'nameSubscribe'>({
  subscribe: 'nameSubscribe',
  unsubscribe: 'nameUnsubscribe',
  notification: 'nameNotification',
  start: ([prefix], sink) => {
    sink.notify(`${prefix}-a`);
    return () => undefined;
  },
});
// One whose subscribe method is only `string` cannot be keyed: it is left out.
const dynamicSubscription: AnySubscriptionDefinition = {
  subscribe: `dyn${Date.now()}Subscribe`,
  unsubscribe: 'dynUnsubscribe',
  notification: 'dynNotification',
  start: () => () => undefined,
};

const mathPlugin = definePlugin({ name: 'math', methods: [mySum, echo], subscriptions: [ticks] });
export const plugins = [
  mathPlugin,
  definePlugin({ name: 'names', methods: [getNames, dynamic], subscriptions: [names, dynamicSubscription] }),
] as const;
export const rpc = createRpc({ plugins, methods: [echo] });

/** What the server exports for its clients: one line, no map. */
export type Api = ApiOf<typeof plugins>;

// The client's side.
const client = createClient<Api>('http://127.0.0.1/rpc');

export async function uses(): Promise<void> {
  const sum: number = await client.mySum({ a: 1, b: 2 });
  const length: number = await client.echo(['text']);
  const names: string[] = await client.getNames();
  // @ts-expect-error: b must be a number
  await client.mySum({ a: 1, b: '2' });
  // @ts-expect-error: echo takes [string]
  await client.echo([1]);
  // @ts-expect-error: the result is a number, not a string
  const wrong: string = await client.mySum({ a: 1, b: 2 });
  // @ts-expect-error: no such method (and no index signature from the method named only string)
  await client.myProduct({ a: 1 });
  void [sum, length, names, wrong];
}

// Subscriptions are typed by the same Api: no hand-written subscription map.
export async function subscribes(): Promise<void> {
  const ws = createClient<Api>('ws://127.0.0.1/rpc/');
  const tickStream = await ws.$subscribe('tickSubscribe', { everyMs: 10 });
  for await (const { tick } of tickStream) {
    const at: number = tick;
    void at;
  }
  const nameStream = await ws.$subscribe('nameSubscribe', ['x']);
  for await (const name of nameStream) {
    const text: string = name;
    // @ts-expect-error: a nameNotification's result is a string, not a number
    const wrongResult: number = name;
    void [text, wrongResult];
  }
  // @ts-expect-error: everyMs must be a number
  await ws.$subscribe('tickSubscribe', { everyMs: '10' });
  // @ts-expect-error: nameSubscribe takes [string]
  await ws.$subscribe('nameSubscribe', [1]);
  // @ts-expect-error: no such subscription (and none from the one named only string)
  await ws.$subscribe('blockSubscribe');
  // @ts-expect-error: a subscription is no method of the client
  await ws.tickSubscribe({ everyMs: 10 });
  // A hand-written map still adds subscriptions beside the API's.
  const both = createClient<Api, { otherSubscribe: typeof ticks }>('ws://127.0.0.1/rpc/');
  await both.$subscribe('otherSubscribe', { everyMs: 1 });
  await both.$subscribe('tickSubscribe', { everyMs: 1 });
}

// One plugin, one method, or a list mixing both are APIs too.
export async function smaller(): Promise<void> {
  const one = createClient<ApiOf<typeof mathPlugin>>('http://127.0.0.1/rpc');
  await one.mySum({ a: 1, b: 2 });
  // @ts-expect-error: getNames is not the math plugin's
  await one.getNames();
  const mixed = createClient<ApiOf<[typeof mathPlugin, typeof getNames]>>('http://127.0.0.1/rpc');
  const names: string[] = await mixed.getNames();
  void names;
}
