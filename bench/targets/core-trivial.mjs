// Ours (c)/(d): the core serving one trivial method, through the Express adapter
// (`--adapter express`, `app.use(expressRpc(rpc))`) or the standalone node:http listener
// (`--adapter node`, `createNodeListener(rpc)`). Logging is on, as in production;
// `--logging off` (level silent) is a diagnostic row only: what the log line costs.
import { createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
import { expressRpc } from '@rollup-router/core/express';
import express from 'express';
import http from 'node:http';
import { benchLogger, LOGGING_NOTE, silentLogger } from './lib/bench-logger.mjs';
import { serve, targetArgs } from './lib/serve.mjs';
import { TRIVIAL_METHOD, TRIVIAL_RESULT } from './lib/trivial.mjs';

const { adapter = 'node', logging = 'on' } = targetArgs();
const ping = defineMethod({
  name: TRIVIAL_METHOD,
  summary: 'Answers "pong".',
  params: { type: 'array', maxItems: 0 },
  result: { const: TRIVIAL_RESULT },
  handler: () => TRIVIAL_RESULT,
});
const rpc = createRpc({ methods: [ping], logger: logging === 'off' ? silentLogger() : benchLogger() });
await rpc.start();

let listener;
if (adapter === 'express') {
  const app = express();
  app.use(expressRpc(rpc));
  listener = app;
} else {
  listener = createNodeListener(rpc);
}
await serve(http.createServer(listener), {
  name: `core ${adapter === 'express' ? 'expressRpc' : 'createNodeListener'}`,
  notes: [logging === 'off' ? 'logging off (level silent)' : LOGGING_NOTE],
  onClose: () => rpc.stop(),
});
