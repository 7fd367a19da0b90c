// How a row's load reaches its server: autocannon over HTTP (the default), or JSON-RPC
// over WebSocket for rows with `transport: 'websocket'`. Same settings, same result shape.
import { measureLoad, warmUp } from './load.mjs';
import { measureSocketLoad, warmUpSocket } from './socket-load.mjs';

const HTTP = { measure: measureLoad, warmUp };
const WEBSOCKET = { measure: measureSocketLoad, warmUp: warmUpSocket };

/** `{ measure, warmUp }` of case `c`. */
export const loadFor = (c) => (c.transport === 'websocket' ? WEBSOCKET : HTTP);
