import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and for how many more bytes, a connection closing on an unread body keeps reading. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;
const CHECK_MS = 100;

/**
 * Closes in stages (RFC 9112 section 9.6), for a reply sent before the request body was
 * read to its end. With `Connection: close`, node:http destroys the socket as soon as the
 * reply is flushed; the client's bytes still in flight then meet a closed socket, the
 * reset destroys the reply before the client reads it, and the client sees EPIPE instead
 * of its 413. So the socket's write side is closed (the reply, then FIN) but reading,
 * and so discarding, goes on until the client finishes or a bound is reached.
 */
export function lingerThenClose(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  // node:http's own 'finish' listener runs first and asks for the socket's destruction
  // once its write side is done (Socket#destroySoon); that wait is replaced by the linger.
  res.once('finish', () => {
    if (socket.destroyed) return;
    socket.removeListener('finish', socket.destroy);
    linger(socket);
  });
}

function linger(socket: Socket): void {
  const startBytes = socket.bytesRead;
  const started = Date.now();
  const check = setInterval(() => {
    if (Date.now() - started >= LINGER_MS || socket.bytesRead - startBytes >= LINGER_BYTES) close();
  }, CHECK_MS);
  check.unref();
  const close = (): void => {
    clearInterval(check);
    socket.destroy();
  };
  // The client read the reply and closed its side: nothing more will come.
  socket.once('end', close);
  socket.once('close', () => clearInterval(check));
}
