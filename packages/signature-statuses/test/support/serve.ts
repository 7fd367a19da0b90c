import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createNodeListener, createRpc, type Plugin, type Rpc } from '@rollup-router/core';

export interface Served {
  readonly rpc: Rpc;
  /** Root endpoint, e.g. http://127.0.0.1:PORT (no trailing slash). */
  readonly url: string;
  /** Posts a JSON body to `path` and returns the parsed answer. */
  post(body: unknown, path?: string): Promise<{ status: number; text: string; json: unknown }>;
  close(): Promise<void>;
}

/** Serves plugins through the core on an ephemeral loopback port, results validated against their schemas. */
export async function serve(plugins: Plugin[]): Promise<Served> {
  const rpc = createRpc({ plugins, validateResults: true, logger: createLogger({ level: 'silent' }) });
  await rpc.start();
  const server = http.createServer(createNodeListener(rpc));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    rpc,
    url,
    async post(body, path = '/') {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await rpc.stop();
    },
  };
}
