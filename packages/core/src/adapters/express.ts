import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MountOptions } from '../http-handler.js';
import type { Rpc } from '../rpc.js';
import { nodeExchange, splitUrl, writeReply } from './node-exchange.js';

/**
 * Mounts the service in an existing Express 5 app: `app.use('/rpc', expressRpc(rpc))`.
 * It answers only its own endpoints and passes everything else on; it reads the body
 * itself unless the host already parsed it (express.json()), changes no app setting,
 * and never hands an error to the host's error handler.
 */
export function expressRpc(rpc: Rpc, mount: MountOptions = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const target = rpc.target(req.path, mount);
    if (target === undefined) {
      next();
      return;
    }
    // A host parser marks a consumed stream; its result is all that is left of the body.
    const parsed = req.readableEnded || req.complete ? (req.body as unknown) : undefined;
    const { query } = splitUrl(req.url);
    void rpc.handle(nodeExchange(req, res, req.path, query, parsed), target).then((reply) => writeReply(res, reply));
  };
}
