import { createLogger, createNodeListener, createRpc, type Plugin, type Rpc } from '@rollup-router/core';
import { listen, post } from './http.js';

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
  const server = await listen(createNodeListener(rpc));
  return {
    rpc,
    url: server.url,
    async post(body, path = '/') {
      const { status, text } = await post(
        server.url + path,
        typeof body === 'string' ? body : JSON.stringify(body),
      );
      return { status, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
    },
    async close() {
      await server.close();
      await rpc.stop();
    },
  };
}
