// Type test, checked by `npm run typecheck` (never run): a client typed from this repository's
// own plugins through ApiOf, with no hand-written map (issue 39, item 3): their methods and
// subscriptions are declared with literal names.
import { createClient, type ApiOf } from '@rollup-router/core/client';
import { delegationRouterPlugin, type DelegationRouterPluginOptions } from '@rollup-router/delegation-router';
import { routesPlugin } from '@rollup-router/routes';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';

declare const delegation: DelegationRouterPluginOptions;
/** A server's plugins, as it builds them. */
export const servicePlugins = () =>
  [routesPlugin(), signatureStatusesPlugin(), delegationRouterPlugin(delegation)] as const;
export type Api = ApiOf<ReturnType<typeof servicePlugins>>;

const client = createClient<Api>('http://127.0.0.1:8080/');
const ws = createClient<Api>('ws://127.0.0.1:8080/');

export async function uses(): Promise<void> {
  const routes = await client.getRoutes();
  const fqdn: string = routes[0]!.fqdn;
  const [statuses] = [
    await client.getSignatureStatuses([
      ['5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'],
    ]),
  ];
  const slot: number = statuses.context.slot;
  const { identity } = await client.getIdentity();
  const { isDelegated } = await client.getDelegationStatus(['11111111111111111111111111111111']);
  const blockhash = await client.getBlockhashForAccounts([['11111111111111111111111111111111']]);
  const signature: string = await client.sendTransaction(['AQ...']);
  // The standard methods the delegation router forwards: named, their params and results Solana's own.
  const balance: unknown = await client.getBalance(['11111111111111111111111111111111']);
  await client.getTransaction(['sig', { maxSupportedTransactionVersion: 0 }]);
  await client.getMultipleAccounts([['11111111111111111111111111111111']]);
  void [fqdn, slot, identity, isDelegated, blockhash, signature, balance];

  // @ts-expect-error: getSignatureStatuses takes [string[]], not [string]
  await client.getSignatureStatuses(['5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4t']);
  // @ts-expect-error: getRoutes answers a list of entries, not a string
  const wrong: string = await client.getRoutes();
  // @ts-expect-error: getDelegationStatus takes [account]
  await client.getDelegationStatus([42]);
  // @ts-expect-error: no such method among the plugins
  await client.getRoute();
  void wrong;
}

export async function subscribes(): Promise<void> {
  const confirmed = await ws.$subscribe('signatureSubscribe', ['sig', { commitment: 'confirmed' }]);
  for await (const notification of confirmed) {
    const result: unknown = notification.value;
    void result;
  }
  await ws.$subscribe('accountSubscribe', ['11111111111111111111111111111111', { encoding: 'base64' }]);
  await ws.$subscribe('slotSubscribe');
  // @ts-expect-error: signatureSubscribe takes [signature, options?]
  await ws.$subscribe('signatureSubscribe', [1]);
  // @ts-expect-error: no such subscription among the plugins
  await ws.$subscribe('tickSubscribe');
}
