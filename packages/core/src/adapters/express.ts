import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { BODY_CONSUMED, HOST_BODY_TOO_LARGE, HOST_BODY_UNPARSABLE, type BodyText } from '../exchange.js';
import type { MountOptions } from '../http-handler.js';
import type { Rpc } from '../rpc.js';
import { nodeExchange, readRequestBody, splitUrl, writeReply } from './node-exchange.js';

/** What body-parser (behind express.json()) puts on the errors it passes on. */
interface BodyParserError {
  type?: string;
  status?: number;
}

/** The Express adapter's options: where its endpoints are, and the host's context from Express's own request. */
export interface ExpressRpcOptions<C> extends MountOptions {
  /**
   * Makes `ctx.host` from Express's request and response (`req.user` of the host's
   * auth middleware, `res.locals`): once per request, every call of a batch sharing it.
   * Default: the service's own `context` (createRpc), given the same request.
   */
  readonly context?: (req: Request, res: Response) => C | Promise<C>;
}

/**
 * Mounts the service in an existing Express 5 app: `app.use('/rpc', expressRpc(rpc))`.
 * It answers its own endpoints (a POST to `<mount>/<name>` naming no method included:
 * -32601 with the request's id) and passes everything else on; it reads the body itself
 * unless the host already did, changes no app setting, and never hands an error to the
 * host's error handler: even a host parser's failure on one of its endpoints is answered
 * here, through the same HTTP handler as any call.
 *
 * It is a pair, which `app.use` flattens, because Express passes a pending error only
 * to handlers of four arguments at the level where the error is: a Router mounted by the
 * host would be skipped whole.
 */
export function expressRpc<C>(
  rpc: Rpc<C>,
  mount: ExpressRpcOptions<NoInfer<C>> = {},
): [RequestHandler, ErrorRequestHandler] {
  const own = mount.context;
  const service = rpc.context;
  const contextOf =
    own !== undefined
      ? (req: Request, res: Response) => () => own(req, res)
      : service !== undefined
        ? (req: Request, res: Response) => () => service({ transport: 'http', req, res })
        : () => undefined;
  const targetOf = (req: Request) =>
    req.method === 'POST' ? rpc.anyTarget(req.path, mount) : rpc.target(req.path, mount);
  const answer = (
    req: Request,
    res: Response,
    parsed: unknown,
    body: (limit: number) => Promise<BodyText>,
  ) => {
    const target = targetOf(req)!;
    const { query } = splitUrl(req.url);
    void rpc
      .handle(nodeExchange(req, res, req.path, query, parsed, body), target, contextOf(req, res))
      .then((reply) => writeReply(res, reply));
  };
  const handle = (req: Request, res: Response, next: NextFunction): void => {
    if (targetOf(req) === undefined) {
      next();
      return;
    }
    const { parsed, body } = hostBody(req);
    answer(req, res, parsed, body);
  };
  const answerHostParserErrors = (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    const type = (err as BodyParserError | null)?.type;
    if (targetOf(req) === undefined || (type !== 'entity.parse.failed' && type !== 'entity.too.large')) {
      next(err);
      return;
    }
    const refusal = type === 'entity.too.large' ? HOST_BODY_TOO_LARGE : HOST_BODY_UNPARSABLE;
    answer(req, res, undefined, () => Promise.resolve(refusal));
  };
  return [handle, answerHostParserErrors];
}

/**
 * What is left of the body when the request reaches the router. Unread: we read it.
 * Read by a host parser: its result, parsed by us when it is text or bytes
 * (express.text(), express.raw()). Read and nothing usable left: said at once, since
 * waiting for the stream would wait forever.
 */
function hostBody(req: Request): { parsed: unknown; body: (limit: number) => Promise<BodyText> } {
  const read = (limit: number) => readRequestBody(req, limit);
  // `complete` alone is no sign: a small body may be fully received and still unread.
  const consumed = req.readableEnded || (req.complete && req.readableDidRead);
  if (!consumed) return { parsed: undefined, body: read };
  const value = req.body as unknown;
  if (typeof value === 'string') return { parsed: undefined, body: () => Promise.resolve(value) };
  if (Buffer.isBuffer(value))
    return { parsed: undefined, body: () => Promise.resolve(value.toString('utf8')) };
  if (value === undefined) return { parsed: undefined, body: () => Promise.resolve(BODY_CONSUMED) };
  return { parsed: value, body: read };
}
