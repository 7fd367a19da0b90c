import net from 'node:net';
import { listenOnReusablePort } from './reusable-port.js';

/** Which side sent a chunk through the proxy. */
export type ProxySide = 'client' | 'upstream';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far, and those still open. */
  readonly accepted: number;
  readonly live: number;
  /** Stops passing anything on the open connections, leaving them open: the peer hangs. */
  freeze(): void;
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
  {
    listening = true,
    port: fixedPort,
    onData,
  }: {
    listening?: boolean;
    /** Listen on this port rather than an ephemeral one. */
    port?: number;
    /** Sees every chunk passed, with the number of its connection (1, 2, ...). */
    onData?: (side: ProxySide, chunk: Buffer, connection: number) => void;
  } = {},
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let accepted = 0;
  let live = 0;
  const track = (s: net.Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const connection = ++accepted;
    live += 1;
    track(client);
    track(upstream);
    if (onData) {
      client.on('data', (chunk: Buffer) => onData('client', chunk, connection));
      upstream.on('data', (chunk: Buffer) => onData('upstream', chunk, connection));
    }
    client.pipe(upstream).pipe(client);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      live -= 1;
      upstream.destroy();
    });
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
  const port = fixedPort ?? (await listenOnReusablePort(listen));
  if (fixedPort !== undefined) await listen(fixedPort);
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  if (!listening) await close();
  return {
    port,
    get accepted() {
      return accepted;
    },
    get live() {
      return live;
    },
    freeze() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close,
    open: () => (server.listening ? Promise.resolve() : listen(port)),
  };
}
