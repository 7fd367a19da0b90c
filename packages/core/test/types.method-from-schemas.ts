// Type test, checked by `npm run typecheck` (never run): the handler types that
// defineMethodFromSchemas derives from inline schemas. Object results with `properties`
// once sent tsc into TS2589/TS2590; the `@ts-expect-error` cases keep the types strict.
import { defineMethodFromSchemas, type MethodDefinition } from '@rollup-router/core';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

const pairParams = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
} as const;

const sumResult = {
  type: 'object',
  properties: {
    sum: { type: 'number' },
    label: { type: 'string' },
    parts: { type: 'array', items: { type: 'object', properties: { value: { type: 'number' } } } },
  },
  required: ['sum'],
  additionalProperties: false,
} as const;

// An object result with properties and a handler returning an object literal.
export const sum = defineMethodFromSchemas({
  name: 'sum',
  params: pairParams,
  result: sumResult,
  handler: ({ a, b }) => ({ sum: a + b }),
});
assertType<
  Equal<
    typeof sum,
    MethodDefinition<
      { a: number; b: number },
      { sum: number; label?: string; parts?: { value?: number; [k: string]: unknown }[] },
      unknown,
      'sum'
    >
  >
>();

// The same, with the schemas inline, an async handler and the optional members filled.
export const sumAsync = defineMethodFromSchemas({
  name: 'sumAsync',
  params: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  result: {
    type: 'object',
    properties: { sum: { type: 'number' }, label: { type: 'string' } },
    required: ['sum', 'label'],
  },
  handler: async ({ a, b }, ctx) => ({ sum: a + b, label: ctx.method }),
});

// A nested object result.
export const nested = defineMethodFromSchemas({
  name: 'nested',
  params: { type: 'object', properties: {} },
  result: {
    type: 'object',
    properties: {
      context: { type: 'object', properties: { slot: { type: 'integer' } }, required: ['slot'] },
      value: { type: 'array', items: { type: 'string' } },
    },
    required: ['context', 'value'],
    additionalProperties: false,
  },
  handler: () => ({ context: { slot: 1 }, value: ['x'] }),
});

// Scalar results still work.
export const greeting = defineMethodFromSchemas({
  name: 'greeting',
  params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  result: { type: 'string' },
  handler: ({ name }) => `Hello, ${name}!`,
});

export const wrongMember = defineMethodFromSchemas({
  name: 'wrongMember',
  params: pairParams,
  result: sumResult,
  // @ts-expect-error `sum` must be a number
  handler: ({ a, b }) => ({ sum: `${a + b}` }),
});

export const missingMember = defineMethodFromSchemas({
  name: 'missingMember',
  params: pairParams,
  result: sumResult,
  // @ts-expect-error `sum` is required
  handler: () => ({ label: 'no sum' }),
});

export const wrongAsync = defineMethodFromSchemas({
  name: 'wrongAsync',
  params: pairParams,
  result: sumResult,
  // @ts-expect-error a promise of the wrong shape is still wrong
  handler: async () => ({ sum: 'one' }),
});

export const wrongNested = defineMethodFromSchemas({
  name: 'wrongNested',
  params: { type: 'object', properties: {} },
  result: {
    type: 'object',
    properties: {
      context: { type: 'object', properties: { slot: { type: 'integer' } }, required: ['slot'] },
    },
    required: ['context'],
  },
  // @ts-expect-error `context.slot` must be a number
  handler: () => ({ context: { slot: 'one' } }),
});

export const wrongParams = defineMethodFromSchemas({
  name: 'wrongParams',
  params: pairParams,
  result: { type: 'number' },
  // @ts-expect-error `a` is a number, it has no toUpperCase
  handler: ({ a }) => a.toUpperCase() as number,
});

export const unknownParam = defineMethodFromSchemas({
  name: 'unknownParam',
  params: pairParams,
  result: { type: 'number' },
  // @ts-expect-error the params schema has no `c`
  handler: ({ c }) => c,
});
