import type { RequestListener } from 'node:http';

/**
 * Headers every answer carries, for a JSON API that no browser should sniff, render,
 * frame or cache: statuses change until finalized, so no cache may keep an answer.
 * HSTS belongs to whatever terminates TLS in front of this plain-HTTP server.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

export function withSecurityHeaders(listener: RequestListener): RequestListener {
  const entries = Object.entries(SECURITY_HEADERS);
  return (req, res) => {
    // Set before the core writes its head: writeHead merges them with its own.
    for (const [name, value] of entries) res.setHeader(name, value);
    listener(req, res);
  };
}
