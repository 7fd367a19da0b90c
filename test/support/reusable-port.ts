import { createServer, type AddressInfo } from 'node:net';

/**
 * Ports a test server can give up and take back (a peer that goes away and comes back on
 * the same port). The kernel hands ports of its ephemeral range (32768-60999 on Linux) to
 * other sockets, outgoing connections included, while such a server is down, so these
 * live below that range.
 */
export const randomReusablePort = (): number => 20_000 + Math.floor(Math.random() * 12_000);

/** Listens on a random free port below the ephemeral range and returns it. */
export async function listenOnReusablePort(listen: (port: number) => Promise<void>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = randomReusablePort();
    try {
      await listen(port);
      return port;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw err;
    }
  }
}

/** A port P with P + 1 free too, below the ephemeral range (the websocket is looked for at P + 1). */
export async function freePortPair(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const p = randomReusablePort();
    if ((await free(p)) && (await free(p + 1))) return p;
  }
}

/**
 * A URL on loopback where nothing listens: a port the kernel handed out, let go at once. A
 * call to it is refused, as a peer that is down is.
 */
export async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
