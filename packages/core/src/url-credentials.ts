/**
 * RFC 7617 Basic credentials from a URL's user info: `user:password`, percent-decoded,
 * UTF-8, base64. undefined when the URL has none.
 */
export function basicAuthorization(u: URL): string | undefined {
  if (u.username === '' && u.password === '') return undefined;
  const credentials = `${decoded(u.username)}:${decoded(u.password)}`;
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

/**
 * A URL without its user info, and that user info as an Authorization header value.
 * fetch refuses a URL with credentials and WebSocket clients drop or refuse them, so a
 * client sends the header instead. A URL without user info comes back unchanged.
 */
export function withoutCredentials(url: string): { readonly url: string; readonly authorization?: string } {
  const u = new URL(url);
  const authorization = basicAuthorization(u);
  if (authorization === undefined) return { url };
  u.username = '';
  u.password = '';
  return { url: u.href, authorization };
}

/** A stray `%` that starts no escape is taken as it is, as browsers do. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
