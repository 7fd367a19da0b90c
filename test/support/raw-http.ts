import { connect } from 'node:net';

/** A response as its bytes said it: the status line's code, the head's fields (names lowercased), the body. */
export interface RawHead {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Writes `request` (a whole HTTP/1.1 request, as bytes) to `url`'s host and port over a
 * plain socket and reads until the server closes: what any client, a proxy included,
 * would get, with nothing in between to add or drop a header.
 */
export function rawExchange(url: string, request: string): Promise<RawHead> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer from ${url} within 10 s`)));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('error', reject);
    socket.once('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no complete response head from ${url}: ${JSON.stringify(text)}`));
      const [statusLine, ...fields] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const field of fields) {
        const colon = field.indexOf(':');
        headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
  });
}
