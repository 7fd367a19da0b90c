import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

/**
 * The WebSocket side of a stand-in node: every JSON-RPC message is answered with the next
 * number, as a node acknowledges subscribes, and nothing is ever notified.
 */
export class AcknowledgingSockets {
  private readonly wss = new WebSocketServer({ noServer: true });
  private next = 1;

  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void =>
    this.wss.handleUpgrade(req, socket, head, (client) => {
      client.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id?: unknown };
        client.send(JSON.stringify({ jsonrpc: '2.0', id, result: this.next++ }));
      });
    });

  terminate(): void {
    for (const client of this.wss.clients) client.terminate();
  }
}
