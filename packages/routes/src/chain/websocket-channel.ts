import { setMaxListeners } from 'node:events';
import {
  createDefaultRpcSubscriptionsTransport,
  createSolanaRpcSubscriptionsFromTransport,
  getChannelPoolingChannelCreator,
  getDataPublisherFromEventEmitter,
  getRpcSubscriptionsChannelWithAutoping,
  getRpcSubscriptionsChannelWithBigIntJSONSerialization,
  SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_CONNECTION_CLOSED,
  SolanaError,
  type RpcSubscriptionsChannel,
} from '@solana/kit';
import { redactUrl, withoutCredentials } from '@rollup-router/core/internal';
import WebSocket from 'ws';

/** What kit's own channel does: a ping after 5 s of silence, at most 100 subscriptions per socket. */
const PING_INTERVAL_MS = 5_000;
const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;

/**
 * kit's Solana subscriptions over websockets that carry the URL's user info as a Basic
 * Authorization header on the upgrade. kit's own channel takes a URL only, and its
 * WebSocket drops or refuses credentials in it. Everything else is kit's: JSON with
 * bigints, the autopinger, the channel pool and subscription coalescing.
 */
export function createChainSubscriptions(wsUrl: string, handshakeTimeoutMs: number) {
  const { url, authorization } = withoutCredentials(wsUrl);
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const createChannel = getChannelPoolingChannelCreator(
    ({ abortSignal }: { abortSignal: AbortSignal }) =>
      openChannel(url, headers, handshakeTimeoutMs, abortSignal)
        .then(getRpcSubscriptionsChannelWithBigIntJSONSerialization)
        .then((channel) =>
          getRpcSubscriptionsChannelWithAutoping({ abortSignal, channel, intervalMs: PING_INTERVAL_MS }),
        ),
    { maxSubscriptionsPerChannel: MAX_SUBSCRIPTIONS_PER_SOCKET, minChannels: 1 },
  );
  return createSolanaRpcSubscriptionsFromTransport(createDefaultRpcSubscriptionsTransport({ createChannel }));
}

/**
 * One websocket as a kit channel: resolves once open, rejects if it cannot open (the
 * error names the URL redacted), reports an unexpected close as kit's "connection
 * closed" error, and closes when `signal` aborts.
 */
function openChannel(
  url: string,
  headers: Record<string, string>,
  handshakeTimeoutMs: number,
  signal: AbortSignal,
): Promise<RpcSubscriptionsChannel<string, string>> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  const events = new EventTarget();
  // One listener per subscription: many records are many listeners, not a leak.
  setMaxListeners(Number.MAX_SAFE_INTEGER, events);
  const socket = new WebSocket(url, {
    headers,
    handshakeTimeout: handshakeTimeoutMs,
    perMessageDeflate: false,
  });
  return new Promise((resolve, reject) => {
    let open = false;
    const onAbort = (): void => {
      if (!open) reject(signal.reason as Error);
      socket.close(1000);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err) => {
      if (!open && !signal.aborted) reject(new Error(`websocket ${redactUrl(url)}: ${err.message}`));
    });
    socket.on('message', (data: Buffer, isBinary) => {
      if (!signal.aborted && !isBinary)
        events.dispatchEvent(new CustomEvent('message', { detail: data.toString() }));
    });
    // Any close we did not ask for ends the subscriptions on it (kit lets a clean 1000
    // pass, which would leave them waiting for notifications that never come).
    socket.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (open && !signal.aborted) {
        const detail = new SolanaError(SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_CONNECTION_CLOSED);
        events.dispatchEvent(new CustomEvent('error', { detail }));
      }
    });
    socket.on('open', () => {
      open = true;
      resolve({
        ...getDataPublisherFromEventEmitter(events),
        send(message: string): Promise<void> {
          if (socket.readyState !== WebSocket.OPEN)
            return Promise.reject(
              new SolanaError(SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_CONNECTION_CLOSED),
            );
          return new Promise((done, failed) => socket.send(message, (err) => (err ? failed(err) : done())));
        },
      });
    });
  });
}
