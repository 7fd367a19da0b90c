// Baseline (b): what one writes by hand without our core - Express 5, express.json()
// and json-rpc-2.0's JSONRPCServer - serving the same trivial method.
import express from 'express';
import { JSONRPCServer } from 'json-rpc-2.0';
import http from 'node:http';
import { serve } from './lib/serve.mjs';
import { TRIVIAL_METHOD, TRIVIAL_RESULT } from './lib/trivial.mjs';

const rpc = new JSONRPCServer();
rpc.addMethod(TRIVIAL_METHOD, () => TRIVIAL_RESULT);

const app = express();
app.use(express.json());
app.post('/', async (req, res) => {
  const response = await rpc.receive(req.body);
  if (response) res.json(response);
  else res.sendStatus(204);
});
await serve(http.createServer(app), { name: 'Express 5 + express.json() + json-rpc-2.0' });
