// docs/deploy.md carries this file from its first import on, verbatim (test/deploy.rolling.test.ts checks it):
// what a kit app does to keep a subscription through a rolling stop of the routers behind a load balancer.
import {
  isSolanaError,
  SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_CONNECTION_CLOSED,
  SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_FAILED_TO_CONNECT,
  type Address,
  type RpcSubscriptions,
  type SolanaRpcSubscriptionsApi,
} from '@solana/kit';

/**
 * Follows an account until `abortSignal` aborts. kit's subscriptions do not reconnect: when
 * the router's socket closes (1001 on a rolling stop), the iterator throws, and this subscribes
 * again: kit opens a new socket, which the load balancer sends to a router still running.
 * A change in between is not replayed: read the account after `onResubscribe` if it matters.
 */
export async function followAccount(
  rpcSubscriptions: RpcSubscriptions<SolanaRpcSubscriptionsApi>,
  address: Address,
  onChange: (lamports: bigint) => void,
  abortSignal: AbortSignal,
  onResubscribe: (cause: unknown) => void = () => undefined,
): Promise<void> {
  while (!abortSignal.aborted) {
    try {
      const notifications = await rpcSubscriptions
        .accountNotifications(address, { commitment: 'confirmed', encoding: 'base64' })
        .subscribe({ abortSignal });
      for await (const { value } of notifications) onChange(value.lamports);
    } catch (err) {
      if (abortSignal.aborted) return;
      if (isSolanaError(err, SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_CONNECTION_CLOSED)) {
        // The socket closed (its close event is the cause): subscribe again at once.
        onResubscribe(err.cause);
      } else if (isSolanaError(err, SOLANA_ERROR__RPC_SUBSCRIPTIONS__CHANNEL_FAILED_TO_CONNECT)) {
        // No router took the socket (the balancer has not seen the stop yet): try again shortly.
        await new Promise((resolve) => setTimeout(resolve, 500));
      } else {
        throw err;
      }
    }
  }
}
