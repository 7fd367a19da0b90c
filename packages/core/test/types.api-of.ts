// Type test, checked by `npm run typecheck` (never run): a client typed by the server's
// plugins and methods through ApiOf, with no hand-written map (issue 39, item 3).
import {
  createRpc,
  defineMethod,
  defineMethodFromSchemas,
  definePlugin,
  type AnyMethodDefinition,
} from '@rollup-router/core';
import { createClient, type ApiOf } from '@rollup-router/core/client';

// The server's side: its plugins and its own methods, types inferred from their definitions.
const mySum = defineMethodFromSchemas({
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
const echo = defineMethod({ name: 'echo', handler: ([text]: [string]) => text.length });
// Types stated, the name passed fourth to keep it.
const getNames = defineMethod<undefined, string[], unknown, 'getNames'>({
  name: 'getNames',
  handler: () => ['a'],
});
// A method whose name is only `string` (built at run time) cannot be keyed: it is left out.
const dynamic: AnyMethodDefinition = { name: `dyn${Date.now()}`, handler: () => 1 };

const mathPlugin = definePlugin({ name: 'math', methods: [mySum, echo] });
export const plugins = [mathPlugin, definePlugin({ name: 'names', methods: [getNames, dynamic] })] as const;
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
