// Type test, checked by `npm run typecheck` (never run): the client's methods take and
// give the types of the server's method definitions.
import { defineMethod, defineMethodFromSchemas, defineSubscription, RawJson } from '@rollup-router/core';
import { createClient } from '@rollup-router/core/client';

export const mySum = defineMethodFromSchemas({
  name: 'mySum',
  params: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  result: { type: 'number' },
  handler: ({ a, b }) => a + b,
});
export const getNames = defineMethod<undefined, string[]>({
  name: 'getNames',
  handler: () => RawJson.of(['a']),
});
export const ticks = defineSubscription<[string], { slot: number }>({
  subscribe: 'tickSubscribe',
  unsubscribe: 'tickUnsubscribe',
  notification: 'tickNotification',
  start: () => () => undefined,
});

const client = createClient<
  { mySum: typeof mySum; getNames: typeof getNames },
  { tickSubscribe: typeof ticks }
>('http://127.0.0.1/rpc');

export async function uses(): Promise<void> {
  const sum: number = await client.mySum({ a: 1, b: 2 });
  const names: string[] = await client.getNames(); // no params needed; RawJson unwrapped
  // @ts-expect-error: b must be a number
  await client.mySum({ a: 1, b: '2' });
  // @ts-expect-error: params are required
  await client.mySum();
  // @ts-expect-error: the result is a number, not a string
  const wrong: string = await client.mySum({ a: 1, b: 2 });
  // @ts-expect-error: no such method
  await client.myProduct({ a: 1 });
  const [s, n] = await client.$batch((call) => [call.mySum({ a: 1, b: 2 }), call.getNames()]);
  if (s.ok && n.ok) {
    const total: number = s.result;
    const list: string[] = n.result;
    // @ts-expect-error: a batch item keeps its own result type
    const bad: string = s.result;
    void [total, list, bad];
  }
  for await (const tick of await client.$subscribe('tickSubscribe', ['x'])) {
    const slot: number = tick.slot;
    void slot;
  }
  // @ts-expect-error: the subscription's params are [string]
  await client.$subscribe('tickSubscribe', [1]);
  void [sum, names, wrong];
}
