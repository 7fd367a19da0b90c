import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { ErrorCode } from '../codes.js';
import { errorJson } from '../envelope.js';
import { RpcError } from '../errors.js';
import type { MountOptions } from '../http-handler.js';
import type { Rpc } from '../rpc.js';
import { nodeExchange, splitUrl, writeReply } from './node-exchange.js';

/** What body-parser (behind express.json()) puts on the errors it passes on. */
interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * Mounts the service in an existing Express 5 app: `app.use('/rpc', expressRpc(rpc))`.
 * It answers only its own endpoints and passes everything else on; it reads the body
 * itself unless the host already parsed it (express.json()), changes no app setting,
 * and never hands an error to the host's error handler: even a host parser's failure
 * on one of its endpoints is answered here, as JSON-RPC.
 *
 * It is a pair, which `app.use` flattens, because Express passes a pending error only
 * to handlers of four arguments at the level where the error is: a Router mounted by the
 * host would be skipped whole.
 */
export function expressRpc(rpc: Rpc, mount: MountOptions = {}): [RequestHandler, ErrorRequestHandler] {
  const handle = (req: Request, res: Response, next: NextFunction): void => {
    const target = rpc.target(req.path, mount);
    if (target === undefined) {
      next();
      return;
    }
    // A host parser marks a consumed stream; its result is all that is left of the body.
    const parsed = req.readableEnded || req.complete ? (req.body as unknown) : undefined;
    const { query } = splitUrl(req.url);
    void rpc
      .handle(nodeExchange(req, res, req.path, query, parsed), target)
      .then((reply) => writeReply(res, reply));
  };
  const answerHostParserErrors = (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    const type = (err as BodyParserError | null)?.type;
    if (
      rpc.target(req.path, mount) === undefined ||
      (type !== 'entity.parse.failed' && type !== 'entity.too.large')
    ) {
      next(err);
      return;
    }
    const tooLarge = type === 'entity.too.large';
    const error = RpcError.of(tooLarge ? ErrorCode.INVALID_REQUEST : ErrorCode.PARSE_ERROR);
    writeReply(res, {
      status: tooLarge ? 413 : 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: errorJson('null', error.toJSON()),
    });
  };
  return [handle, answerHostParserErrors];
}
