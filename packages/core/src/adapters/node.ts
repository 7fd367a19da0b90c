import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { MountOptions } from '../http-handler.js';
import { NOT_FOUND_BODY } from '../http-status.js';
import { mountPrefix } from '../mount-path.js';
import type { Rpc } from '../rpc.js';
import { fixedHeaders, nodeExchange, splitUrl, writeReply } from './node-exchange.js';

export interface NodeListenerOptions extends MountOptions {
  /** Where the endpoints live, e.g. `/rpc`. Default `/`. */
  readonly mountPath?: string;
  /** Answers requests that are not for an RPC endpoint (health checks, metrics). Default: 404 with a JSON-RPC error. */
  readonly fallback?: RequestListener;
  /**
   * Headers every RPC reply carries besides its own (security headers, say), written in
   * the reply's one `writeHead`: cheaper than `res.setHeader` before the listener. The
   * reply's own headers win a clash. The fallback's replies are the fallback's to head.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The fastest path the core offers: straight on node:http, with none of Express's
 * per-request pipeline, and every behaviour of the Express adapter.
 */
export function createNodeListener<C>(rpc: Rpc<C>, options: NodeListenerOptions = {}): RequestListener {
  const context = rpc.context;
  const mount = mountPrefix(options.mountPath);
  const fallback = options.fallback ?? notFound;
  const fixed = fixedHeaders(options.headers);
  return (req, res) => {
    const { path: fullPath, query } = splitUrl(req.url);
    // `/rpc` mounts `/rpc` and `/rpc/...`, not `/rpcx`.
    const rest = fullPath.slice(mount.length);
    const below =
      mount === ''
        ? fullPath
        : fullPath.startsWith(mount) && (rest === '' || rest[0] === '/')
          ? rest
          : undefined;
    const path = below === '' ? '/' : below;
    // Without a fallback of the host's, a POST naming no method is answered as JSON-RPC
    // (-32601 with the request's id); with one, the host owns every other path.
    const target =
      path === undefined
        ? undefined
        : options.fallback === undefined && req.method === 'POST'
          ? rpc.anyTarget(path, options)
          : rpc.target(path, options);
    if (target === undefined) {
      fallback(req, res);
      return;
    }
    void rpc
      .handle(
        nodeExchange(req, res, below!, query, undefined),
        target,
        context && (() => context({ transport: 'http', req, res })),
      )
      .then((reply) => writeReply(res, reply, fixed));
  };
}

function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': NOT_FOUND_BODY.length,
  });
  res.end(NOT_FOUND_BODY);
}
