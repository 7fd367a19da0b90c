import type { Connection } from '@solana/web3.js';
import { waitFor } from './wait-for.js';

/** Whether web3.js's WebSocket is open (it has no public accessor; 1.x keeps this field). */
export const web3SocketOpen = (connection: Connection): boolean =>
  (connection as unknown as { _rpcWebSocketConnected: boolean })._rpcWebSocketConnected;

/**
 * Until web3.js closed its idle WebSocket (it does 500 ms after its last subscription ends).
 * A server stopped before that leaves web3.js reconnecting, and logging "ws error", once a
 * second for the rest of the run.
 */
export async function web3SocketClosed(connection: Connection): Promise<void> {
  await waitFor(() => !web3SocketOpen(connection), "web3.js's idle WebSocket closed");
}
