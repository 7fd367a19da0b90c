import { Keypair, LAMPORTS_PER_SOL, type Connection } from '@solana/web3.js';
import { freePortPair } from './reusable-port.js';
import { tcpProxy, type TcpProxy } from './tcp-proxy.js';
import { WsFrameTap } from './ws-frames.js';

/** Validator A behind TCP proxies, its websocket's frames read on the way. */
export interface TappedValidator {
  /** The HTTP proxy's URL: its websocket is at the port + 1, where web3.js and the router look. */
  readonly url: string;
  readonly http: TcpProxy;
  readonly ws: TcpProxy;
  /** What passes on the websocket: upstream subscriptions are counted on the wire. */
  readonly tap: WsFrameTap;
  close(): Promise<void>;
}

export async function tappedValidatorA(): Promise<TappedValidator> {
  const port = await freePortPair();
  const tap = new WsFrameTap();
  const http = await tcpProxy({ host: '127.0.0.1', port: 17799 }, { port });
  const ws = await tcpProxy({ host: '127.0.0.1', port: 17800 }, { port: port + 1, onData: tap.onData });
  return {
    url: `http://127.0.0.1:${port}`,
    http,
    ws,
    tap,
    close: async () => {
      await http.close();
      await ws.close();
    },
  };
}

/** A new keypair with `sol` airdropped on `chain`, confirmed. */
export async function fundedKeypair(chain: Connection, sol = 10): Promise<Keypair> {
  const payer = Keypair.generate();
  await chain.confirmTransaction(
    await chain.requestAirdrop(payer.publicKey, sol * LAMPORTS_PER_SOL),
    'confirmed',
  );
  return payer;
}
