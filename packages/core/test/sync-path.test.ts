import { expect } from 'chai';
import { createLogger, createRpc, defineMethod, type HttpExchange, type Rpc } from '@rollup-router/core';

/** Microtask turns until `p` settles: counts promise hops, with no clock involved. */
async function turnsUntilSettled(p: Promise<unknown>): Promise<number> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turns = 0; turns < 100; turns++) {
    if (settled) return turns;
    await null;
  }
  return Infinity;
}

/** An exchange whose body a host already parsed: nothing to wait for but the call itself. */
const parsedExchange = (body: unknown): HttpExchange => ({
  method: 'POST',
  path: '/',
  query: '',
  headers: { 'content-type': 'application/json' },
  header: (name) => (name === 'content-type' ? 'application/json' : undefined),
  remoteAddress: '127.0.0.1',
  parsedBody: body,
  readBody: () => Promise.reject(new Error('the body was parsed already')),
  onClientGone: () => undefined,
});

describe('a synchronous handler is answered without promise hops', () => {
  let rpc: Rpc;
  before(async () => {
    rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      methods: [
        defineMethod<[], string>({ name: 'now', handler: () => 'sync' }),
        defineMethod<[], string>({ name: 'later', handler: async () => 'async' }),
      ],
    });
    await rpc.start();
  });
  after(() => rpc.stop());

  const target = () => rpc.target('/')!;
  const call = (method: string) => parsedExchange({ jsonrpc: '2.0', id: 1, method });

  it('settles the reply within a few microtask turns, however deep the layers', async () => {
    const reply = rpc.handle(call('now'), target());
    // Before, each async layer (handle, dispatch, call, invoke) and each await added turns.
    expect(await turnsUntilSettled(reply)).to.be.at.most(2);
    expect((await reply).body).to.equal('{"jsonrpc":"2.0","result":"sync","id":1}');
  });

  it('still waits for an asynchronous handler, and answers the same', async () => {
    const reply = await rpc.handle(call('later'), target());
    expect(reply.body).to.equal('{"jsonrpc":"2.0","result":"async","id":1}');
  });
});
