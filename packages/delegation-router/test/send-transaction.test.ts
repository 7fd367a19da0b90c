import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import bs58 from 'bs58';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { routesPlugin } from '@rollup-router/routes';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { delegationRouterPlugin } from '../src/index.js';

/** A base64 wire transaction's own signature (its fee payer's, after the one-byte count): what a chain answers. */
const signatureOf = (wire: string): string => bs58.encode(Buffer.from(wire, 'base64').subarray(1, 65));

/** A base chain on loopback that holds no delegation record and answers sendTransaction after `delayMs`. */
async function slowChain(delayMs: number): Promise<{ url: string; sent: string[]; close(): Promise<void> }> {
  const sent: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: number;
        method: string;
        params: unknown[];
      };
      const answer = (result: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', result, id: call.id }));
      };
      if (call.method === 'getMultipleAccounts') {
        return answer({ context: { slot: 1 }, value: (call.params[0] as string[]).map(() => null) });
      }
      if (call.method !== 'sendTransaction') return answer(null);
      setTimeout(() => {
        sent.push(call.method);
        answer(signatureOf(call.params[0] as string));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function signedTransfer(): string {
  const payer = Keypair.generate();
  const tx = new Transaction({
    feePayer: payer.publicKey,
    recentBlockhash: '11111111111111111111111111111111',
  });
  tx.add(
    SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1,
    }),
  );
  tx.sign(payer);
  return tx.serialize().toString('base64');
}

describe('sendTransaction', () => {
  let served: Served | undefined;
  let chain: Awaited<ReturnType<typeof slowChain>> | undefined;
  afterEach(async () => {
    await served?.close();
    await chain?.close();
  });

  it('a client that leaves before the upstream answers: the transaction is still followed to its answer and tracked', async () => {
    chain = await slowChain(300);
    const tracked: string[] = [];
    const routes = routesPlugin({ routes: [] });
    served = await serve([
      routes,
      delegationRouterPlugin({
        baseChain: { url: chain.url },
        delegations: { follow: false },
        registry: routes.registry,
        onSent: (signature) => tracked.push(signature),
      }),
    ]);
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [signedTransfer(), { encoding: 'base64' }],
    };
    const gone = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(50),
    }).catch((err: Error) => err);
    expect(gone).to.be.instanceOf(Error);
    const wire = body.params[0] as string;
    // Its status is asked of the upstream that took it only if its signature was tracked.
    await waitFor(() => tracked.length > 0, 'the signature tracked');
    expect(tracked).to.deep.equal([signatureOf(wire)]);
    expect(chain.sent).to.deep.equal(['sendTransaction']);
  });
});
