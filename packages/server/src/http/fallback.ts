import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { bearerToken, NOT_FOUND_BODY, SecretMatch } from '@rollup-router/core/internal';
import type { ReadinessReport } from '../readiness/readiness.js';

export interface FallbackRoutes {
  /** undefined: no /health and /ready here (the metrics-only listener). */
  readonly ready: (() => ReadinessReport) | undefined;
  /** undefined: no /metrics here (metrics off, or on a listener of their own). */
  readonly metrics: (() => Promise<{ contentType: string; body: string }>) | undefined;
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  readonly metricsToken?: string;
  /** Logs a failure to build an answer (the client gets a bare 500). */
  readonly onError: (err: unknown) => void;
  /**
   * Answers the POSTs no other route takes, as the core does on its own: a path-style
   * method nobody serves is -32601 echoing the request's id. undefined: a bare 404.
   */
  readonly otherPosts?: RequestListener;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function sendReady(req: IncomingMessage, res: ServerResponse, report: ReadinessReport): void {
  const body = report.ready
    ? { status: 'ready', checks: report.checks }
    : { status: 'not ready', reasons: report.reasons, checks: report.checks };
  send(req, res, report.ready ? 200 : 503, JSON_TYPE, JSON.stringify(body));
}

function sendMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  routes: FallbackRoutes,
  token: SecretMatch | undefined,
): void {
  if (token !== undefined && !token.matches(bearerToken(req.headers.authorization))) {
    send(req, res, 401, JSON_TYPE, '{"error":"unauthorized; send Authorization: Bearer <metrics.token>"}', {
      'www-authenticate': 'Bearer',
    });
    return;
  }
  routes.metrics!().then(
    ({ contentType, body }) => send(req, res, 200, contentType, body),
    (err: unknown) => {
      routes.onError(err);
      send(req, res, 500, JSON_TYPE, '{"error":"metrics unavailable"}');
    },
  );
}

/**
 * Everything on a port that is not a JSON-RPC endpoint: GET /health (the process is
 * alive), GET /ready (it should get traffic), GET /metrics (Prometheus). Anything else is
 * a 404 with a JSON-RPC error body, as the core answers unknown paths.
 */
export function createFallback(routes: FallbackRoutes): RequestListener {
  const token = routes.metricsToken === undefined ? undefined : new SecretMatch([routes.metricsToken]);
  return (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const probe = (path === '/health' || path === '/ready') && routes.ready !== undefined;
    if (!probe && !(path === '/metrics' && routes.metrics !== undefined)) {
      if (req.method === 'POST' && routes.otherPosts !== undefined) {
        // The web3.js router SDK posts to `${url}/getDelegationStatus`, and its docs give the
        // url with a trailing slash: `//getDelegationStatus` is that method's path-style endpoint.
        if (path?.startsWith('//') === true) req.url = (req.url ?? '/').replace(/^\/+/, '/');
        routes.otherPosts(req, res);
      } else send(req, res, 404, JSON_TYPE, NOT_FOUND_BODY);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(req, res, 405, JSON_TYPE, '{"error":"method not allowed; use GET"}', { allow: 'GET, HEAD' });
      return;
    }
    if (path === '/health') send(req, res, 200, JSON_TYPE, '{"status":"ok"}');
    else if (path === '/ready') sendReady(req, res, routes.ready!());
    else sendMetrics(req, res, routes, token);
  };
}
