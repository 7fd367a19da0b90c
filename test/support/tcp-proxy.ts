import net from 'node:net';
import { listenOnReusablePort } from './reusable-port.js';

export interface TcpProxy {
  readonly port: number;
  /** Stops listening and drops every connection through it: the peer "goes away". */
  close(): Promise<void>;
  /** Listens again on the same port: the peer "comes back". */
  open(): Promise<void>;
}

/**
 * A TCP proxy on an ephemeral loopback port in front of a real peer. Closing it cuts
 * every connection at once, the way a network outage or a peer restart does, without
 * touching the shared peer behind it.
 */
export async function tcpProxy(
  target: { host: string; port: number },
  { listening = true } = {},
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const port = await listenOnReusablePort(listen);
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  if (!listening) await close();
  return { port, close, open: () => (server.listening ? Promise.resolve() : listen(port)) };
}
