/**
 * An upstream URL fit for logs, metrics labels and error data: providers put API keys in
 * the path or the query (`https://host/<key>`, `?api-key=`), so only the origin is shown.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden = (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.username !== '';
    return hidden ? `${u.origin}/…` : u.origin;
  } catch {
    return '(invalid URL)';
  }
}
