// A plugin module the reference server loads, so your methods get its /health, /ready,
// /metrics, API keys, rate limits, signals and graceful drain:
//   node --import tsx packages/server/dist/cli.js --plugin ./examples/server-plugin.ts
// or in a config file (the path is relative to that file):
//   plugins:
//     - module: ./server-plugin.js
//       options: { greeting: Bonjour }
// The default export is a Plugin, or (as here) a function that takes the entry's
// `options` and returns one.
import {
  defineMethodFromSchemas,
  definePlugin,
  validateOptions,
  type Plugin,
  type PluginContext,
} from '@rollup-router/core';

const optionsSchema = {
  type: 'object',
  properties: { greeting: { type: 'string', minLength: 1, maxLength: 32, default: 'Hello' } },
  additionalProperties: false,
} as const;

export default function greetingsPlugin(options: unknown): Plugin {
  // Bad options stop the server before it listens (exit 2), naming the key.
  const { greeting } = validateOptions<{ greeting: string }>(optionsSchema, options, 'greetings options');
  let served = 0;
  let log: PluginContext['log'] | undefined;
  const getGreeting = defineMethodFromSchemas({
    name: 'getGreeting',
    summary: 'Greets someone by name.',
    params: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
      required: ['name'],
      additionalProperties: false,
    },
    result: { type: 'string' },
    handler: ({ name }): string => {
      served += 1;
      return `${greeting}, ${name}!`;
    },
  });
  return definePlugin({
    name: 'greetings',
    methods: [getGreeting],
    start: (ctx) => {
      log = ctx.log;
      log.info({ greeting }, 'greetings ready');
    },
    stop: () => log?.info({ served }, 'greetings stopped'),
  });
}
