// Which codes a service sends (issue 39, item 1): a service built on the core alone sends its
// own codes as they are (plain JSON-RPC 2.0); a service with a Solana plugin sends what
// @solana/kit's development build can read; the service option wireErrors overrides both.
// Real HTTP and WebSocket on loopback, kit's own development build.
import { expect } from 'chai';
import { createSolanaRpc, isSolanaError, SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR } from '@solana/kit';
import {
  createLogger,
  createRpc,
  defineErrors,
  defineMethod,
  definePlugin,
  defineSubscription,
  jsonRpcWireErrors,
  RpcError,
  type Plugin,
  type RpcOptions,
} from '@rollup-router/core';
import { createClient, RpcCallError } from '@rollup-router/core/client';
import { routesPlugin } from '@rollup-router/routes';
import { solanaWireErrors } from '@rollup-router/solana';
import { post } from '@rollup-router/test-support/http';
import { expectKitReadRefusal, kitSubscribesTwice } from '@rollup-router/test-support/kit-subscriber';
import { randomSignature } from '@rollup-router/test-support/solana';
import { serveSockets, type SocketServed } from '@rollup-router/test-support/socket-server';
import { TestSocket, type Frame } from '@rollup-router/test-support/ws-client';

const ShopErrors = defineErrors({
  OUT_OF_STOCK: { code: -32060, message: 'Out of stock', meaning: 'the item is sold out' },
  NOT_WATCHED: { code: -32061, message: 'Not watched here', meaning: 'a signature this shop does not watch' },
});

// The shop watches any signature but this one.
const REFUSED = randomSignature();

const getSlot = defineMethod({
  name: 'getSlot',
  handler: (): number => {
    throw RpcError.from(ShopErrors.OUT_OF_STOCK, { item: 'apples' });
  },
});

// An embedder's own plugin. Its methods carry Solana's names so that kit can call them.
const shopPlugin = definePlugin({
  name: 'shop',
  errors: Object.values(ShopErrors),
  methods: [
    getSlot,
    defineMethod({
      name: 'getBlockHeight',
      handler: (): number => {
        throw new Error('a bug of the shop');
      },
    }),
    defineMethod({ name: 'getHealth', handler: () => 'ok' }),
  ],
  subscriptions: [
    defineSubscription<[string, ...unknown[]], never>({
      subscribe: 'signatureSubscribe',
      unsubscribe: 'signatureUnsubscribe',
      notification: 'signatureNotification',
      admit: ([signature]) => {
        if (signature === REFUSED) throw RpcError.from(ShopErrors.NOT_WATCHED);
      },
      start: () => () => undefined,
    }),
  ],
});

const running: SocketServed[] = [];

async function serve(options: RpcOptions): Promise<SocketServed> {
  const served = await serveSockets(options);
  running.push(served);
  return served;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function httpError(url: string, method: string): Promise<Frame['error']> {
  const { text } = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method }));
  return (JSON.parse(text) as Frame).error;
}

/** Calls until the rate limit refuses one (a few points are configured), returning that refusal. */
async function firstRefusal(call: () => Promise<Frame['error']>): Promise<Frame['error']> {
  for (let i = 0; i < 10; i++) {
    const error = await call();
    if (error !== undefined) return error;
  }
  throw new Error('no call was refused');
}

const rateLimit = { points: 3, durationSeconds: 600 };

describe('error codes on the wire, per service (wireErrors)', () => {
  describe('a service with no Solana plugin', () => {
    it("sends its plugin's code, a bug's -32603 and the core's rate limit -32051 as they are, over HTTP", async () => {
      const s = await serve({ plugins: [shopPlugin], rateLimit });
      expect(await httpError(s.url, 'getSlot')).to.deep.equal({
        code: -32060,
        message: 'Out of stock',
        data: { item: 'apples' },
      });
      expect(await httpError(s.url, 'getBlockHeight')).to.deep.equal({
        code: -32603,
        message: 'Internal error',
      });
      const limited = await firstRefusal(() => httpError(s.url, 'getHealth'));
      expect(limited?.code).to.equal(-32051);
      expect(limited?.message).to.equal('Too many requests');
    });

    it('sends them as they are over WebSocket, a refused subscription included', async () => {
      const s = await serve({ plugins: [shopPlugin], rateLimit: { points: 5, durationSeconds: 600 } });
      const socket = await TestSocket.open(s.ws);
      try {
        expect((await socket.call('getSlot', undefined, 1)).error).to.deep.equal({
          code: -32060,
          message: 'Out of stock',
          data: { item: 'apples' },
        });
        expect((await socket.call('getBlockHeight', undefined, 2)).error?.code).to.equal(-32603);
        expect((await socket.call('signatureSubscribe', [REFUSED], 3)).error).to.deep.equal({
          code: -32061,
          message: 'Not watched here',
        });
        const limited = await firstRefusal(async () => (await socket.call('getHealth', undefined, 4)).error);
        expect(limited?.code).to.equal(-32051);
      } finally {
        await socket.close();
      }
    });

    it("can opt into Solana's policy with the service option", async () => {
      const s = await serve({ plugins: [shopPlugin], wireErrors: solanaWireErrors });
      expect(await httpError(s.url, 'getSlot')).to.deep.equal({
        code: -32603,
        message: 'Out of stock',
        data: { code: -32060, item: 'apples' },
      });
    });
  });

  describe('a service with a Solana plugin (routes) and the embedder’s own methods', () => {
    const solanaService = (options: RpcOptions = {}) =>
      serve({ plugins: [routesPlugin({ routes: [] }), shopPlugin], ...options });

    it("kit's development build reads the embedder's code and a bug as SolanaErrors over HTTP", async () => {
      const s = await solanaService();
      const rpc = createSolanaRpc(s.url);
      const failure = async (send: () => Promise<unknown>): Promise<unknown> =>
        send().then(
          () => expect.fail('the call succeeded'),
          (err: unknown) => err,
        );
      const outOfStock = await inKitDevelopmentBuild(() => failure(() => rpc.getSlot().send()));
      expect(isSolanaError(outOfStock, SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR), String(outOfStock)).to.equal(
        true,
      );
      expect((outOfStock as Error).message).to.include('Out of stock');
      const bug = await inKitDevelopmentBuild(() => failure(() => rpc.getBlockHeight().send()));
      expect(isSolanaError(bug, SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR), String(bug)).to.equal(true);
    });

    it("kit's development build reads the embedder's refused subscription over WebSocket and lives", async () => {
      const s = await solanaService();
      const run = await kitSubscribesTwice(s.ws, { second: REFUSED });
      expectKitReadRefusal(run, 'Not watched here');
    });

    it('the service option overrides the plugins: jsonRpcWireErrors sends the codes as they are', async () => {
      const s = await solanaService({ wireErrors: jsonRpcWireErrors });
      expect((await httpError(s.url, 'getSlot'))?.code).to.equal(-32060);
    });

    it('the typed client reads the cause either way', async () => {
      const solana = await solanaService();
      const plain = await serve({ plugins: [shopPlugin] });
      for (const url of [solana.url, plain.url, solana.ws, plain.ws]) {
        const client = createClient<{ getSlot: typeof getSlot }>(url);
        try {
          const err = await client.getSlot().then(
            () => expect.fail('the call succeeded'),
            (e: unknown) => e,
          );
          expect(err, url).to.be.instanceOf(RpcCallError);
          expect((err as RpcCallError).causeCode, url).to.equal(-32060);
        } finally {
          await client.$close();
        }
      }
    });
  });

  it("the typed client told the plain policy reads a -32603 as -32603 whatever its data's code, and a code sent as itself as itself", async () => {
    // An error of JSON-RPC's own -32603 whose data has a `code` of its own (an upstream's, say):
    // under the plain policy it is no wrapped cause.
    const relayed = defineMethod({
      name: 'getRelayed',
      handler: (): number => {
        throw new RpcError(-32603, 'Upstream failed', { code: -32010, upstream: 'node-1' });
      },
    });
    const plain = await serve({ plugins: [shopPlugin, definePlugin({ name: 'relay', methods: [relayed] })] });
    for (const url of [plain.url, plain.ws]) {
      const client = createClient<{ getSlot: typeof getSlot; getRelayed: typeof relayed }>(url, {
        wireErrors: 'json-rpc',
      });
      try {
        const own = (await client.getSlot().catch((e: unknown) => e)) as RpcCallError;
        expect([own.code, own.causeCode], url).to.deep.equal([-32060, -32060]);
        const internal = (await client.getRelayed().catch((e: unknown) => e)) as RpcCallError;
        expect(internal, url).to.be.instanceOf(RpcCallError);
        expect([internal.code, internal.causeCode, internal.data], url).to.deep.equal([
          -32603,
          -32603,
          { code: -32010, upstream: 'node-1' },
        ]);
        const [settled] = await client.$batch((call) => [call.getRelayed()]);
        expect(settled.ok === false && settled.error.causeCode, url).to.equal(-32603);
      } finally {
        await client.$close();
      }
    }
  });

  it('two plugins installing different policies refuse the build, naming both', () => {
    const other = { name: 'teapot', toWire: (e: { code: number; message: string }) => e };
    const teapot: Plugin = { name: 'teapot-plugin', wireErrors: other };
    expect(() =>
      createRpc({
        logger: createLogger({ level: 'silent' }),
        plugins: [routesPlugin({ routes: [] }), teapot],
      }),
    ).to.throw(
      /plugin "routes" installs the wire error policy "solana" and plugin "teapot-plugin" installs "teapot"/,
    );
  });
});

/** kit picks its development build from NODE_ENV when it reads an error; whoever runs the tests may set it. */
async function inKitDevelopmentBuild<T>(run: () => Promise<T>): Promise<T> {
  const previous = process.env.NODE_ENV;
  delete process.env.NODE_ENV;
  try {
    return await run();
  } finally {
    if (previous !== undefined) process.env.NODE_ENV = previous;
  }
}
