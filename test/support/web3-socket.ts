import type { Connection } from '@solana/web3.js';
import { waitFor } from './wait-for.js';

/** The parts of web3.js 1.x's Connection and its rpc-websockets client this helper reads (no public accessor). */
interface Web3Socket {
  _subscriptionsByHash: Record<string, unknown>;
  _rpcWebSocket: { socket?: unknown; close(): void };
}

/**
 * Closes web3.js's WebSocket once the test's subscriptions are gone, and resolves when it is
 * closed. With nothing subscribed web3.js only marks the socket idle and closes it 500 ms later:
 * a server stopped before that cuts it instead, and web3.js then reconnects, logging "ws error"
 * once a second for the rest of the run. Closed here with 1000, it does not reconnect.
 */
export async function closeWeb3Socket(connection: Connection): Promise<void> {
  const c = connection as unknown as Web3Socket;
  await waitFor(() => Object.keys(c._subscriptionsByHash).length === 0, "web3.js's subscriptions removed");
  c._rpcWebSocket.close();
  await waitFor(() => c._rpcWebSocket.socket === undefined, "web3.js's WebSocket closed");
}
