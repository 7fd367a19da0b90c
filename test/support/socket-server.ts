import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  attachWebSocket,
  createLogger,
  createNodeListener,
  createRpc,
  type Rpc,
  type RpcOptions,
  type WebSocketTransport,
} from '@rollup-router/core';

/** The core served over HTTP and WebSocket on one ephemeral loopback port. */
export interface SocketServed {
  readonly rpc: Rpc;
  readonly http: Server;
  readonly sockets: WebSocketTransport;
  /** The root endpoint over HTTP, with its trailing slash. */
  readonly url: string;
  /** The same endpoint as ws://. */
  readonly ws: string;
  close(): Promise<void>;
}

/** createRpc (silent unless `options.logger` says otherwise), started, with node:http and attachWebSocket. */
export async function serveSockets(options: RpcOptions): Promise<SocketServed> {
  const rpc = createRpc({ logger: createLogger({ level: 'silent' }), ...options });
  await rpc.start();
  const http = createServer(createNodeListener(rpc));
  const sockets = attachWebSocket(http, rpc);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  return {
    rpc,
    http,
    sockets,
    url: `http://127.0.0.1:${port}/`,
    ws: `ws://127.0.0.1:${port}/`,
    close: async () => {
      await sockets.close(0);
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
      await rpc.stop();
    },
  };
}
