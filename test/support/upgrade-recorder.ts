// A websocket server on loopback that records what each upgrade request carried: its URL
// (the request line's target) and its Authorization header. It answers every request with
// a subscription id, so a client goes on as it would against a node.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AcknowledgingSockets } from './acknowledging-sockets.js';

export interface RecordedUpgrade {
  /** The request line's target, e.g. `/path?x=1`: user info never belongs there. */
  readonly url: string | undefined;
  readonly authorization: string | undefined;
}

export class UpgradeRecorder {
  readonly upgrades: RecordedUpgrade[] = [];
  private readonly sockets = new AcknowledgingSockets();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<UpgradeRecorder> {
    const server = http.createServer((_req, res) => res.writeHead(404).end());
    const recorder = new UpgradeRecorder(server);
    server.on('upgrade', (req, socket, head) => {
      recorder.upgrades.push({ url: req.url, authorization: req.headers.authorization });
      recorder.sockets.upgrade(req, socket, head);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return recorder;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.sockets.terminate();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
