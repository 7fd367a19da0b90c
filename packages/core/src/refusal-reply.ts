import type { HttpReply } from './exchange.js';
import type { HttpRefusalName } from './http-status.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The reply to a request refused before any call of it ran: over HTTP, and as the answer
 * to a refused WebSocket upgrade, so a client (and whatever sits in front) sees one head
 * for one refusal. `headers` holds what the transport set already (the request id, say);
 * the reason adds what its status calls for: Connection: close for a shutdown's 503 (the
 * next request goes elsewhere), WWW-Authenticate for a 401, Retry-After when the refusal's
 * data says how long to wait.
 */
export function refusalReply(
  status: number,
  headers: Record<string, string>,
  body: string,
  why?: HttpRefusalName,
  data?: unknown,
): HttpReply {
  if (why === 'SHUTTING_DOWN') headers['connection'] = 'close';
  else if (why === 'UNAUTHORIZED') headers['www-authenticate'] = 'Bearer';
  const retryAfter = retryAfterOf(data);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  headers['content-type'] = JSON_CONTENT_TYPE;
  return { status, headers, body };
}

function retryAfterOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const seconds = (data as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : undefined;
}
