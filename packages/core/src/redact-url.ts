/**
 * A URL fit for logs, metrics labels, readiness details and error data. Providers put API
 * keys in the path or the query (`https://host/<key>`, `?api-key=`) and credentials in the
 * user info, so only the origin is shown, followed by `/…` when something was hidden: one
 * upstream has one name everywhere.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden =
      (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.username !== '' || u.password !== '';
    return hidden ? `${u.origin}/…` : u.origin;
  } catch {
    return '(invalid URL)';
  }
}
